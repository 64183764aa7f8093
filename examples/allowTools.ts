/**
 * A product's own operator in front of the bridge: a tool allow-list. A `tools/call` of a tool
 * outside the list is refused at once with a JSON-RPC error and never reaches the bridge; the
 * `tools/list` results show only the allowed tools. Runtime-neutral (rxjs and the root entry).
 */
import { connect, defer, filter, map, merge, tap } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { Frame, Inbound, JsonObject, RequestFrame, RequestId } from 'mcp-bridge-sdk';

/** Settings of allowTools. */
export interface AllowToolsConfig {
  /** The names of the tools the client may see and call. */
  readonly tools: readonly string[];
}

/** The JSON-RPC code of the refusal: the tool name is an invalid parameter for this bridge. */
export const NOT_ALLOWED_CODE = -32602;

/** The `name` member of a tool or of `tools/call` params, or '' without one. */
const nameOf = (value: unknown): string => {
  const name = typeof value === 'object' && value !== null ? (value as JsonObject)['name'] : undefined;
  return typeof name === 'string' ? name : '';
};

const isRequest = (inbound: Inbound): inbound is { kind: 'frame'; frame: RequestFrame } =>
  inbound.kind === 'frame' && 'method' in inbound.frame && 'id' in inbound.frame;

/**
 * Wraps `bridge` (or any operator from client lines to client frames) with a tool allow-list.
 *
 * @example
 * import { allowTools } from './allowTools.js';
 * serveStdio(genericProfile, upstream, { compose: (bridge) => allowTools({ tools: ['echo'] }, bridge) });
 */
export function allowTools(
  config: AllowToolsConfig,
  bridge: OperatorFunction<Inbound, Frame>,
): OperatorFunction<Inbound, Frame> {
  const allowed = new Set(config.tools);
  const toolOf = (frame: RequestFrame): string => nameOf(frame.params);
  const refused = (inbound: Inbound): inbound is { kind: 'frame'; frame: RequestFrame } =>
    isRequest(inbound) && inbound.frame.method === 'tools/call' && !allowed.has(toolOf(inbound.frame));
  return (inbound$) =>
    defer(() => {
      // Per subscription: the ids of the client's tools/list requests.
      const listIds = new Set<RequestId>();
      const onlyAllowed = (frame: Frame): Frame => {
        if (!('result' in frame) || frame.id === null || !listIds.delete(frame.id)) return frame;
        const tools = frame.result['tools'];
        if (!Array.isArray(tools)) return frame;
        const kept = tools.filter((tool) => allowed.has(nameOf(tool)));
        return { ...frame, result: { ...frame.result, tools: kept } };
      };
      return inbound$.pipe(
        connect((shared$) =>
          merge(
            shared$.pipe(
              filter((inbound) => !refused(inbound)),
              tap((inbound) => {
                if (isRequest(inbound) && inbound.frame.method === 'tools/list')
                  listIds.add(inbound.frame.id);
              }),
              bridge,
              map(onlyAllowed),
            ),
            shared$.pipe(
              filter((inbound): inbound is { kind: 'frame'; frame: RequestFrame } => refused(inbound)),
              map(({ frame }): Frame => ({
                jsonrpc: '2.0',
                id: frame.id,
                error: {
                  code: NOT_ALLOWED_CODE,
                  message: `The tool '${toolOf(frame)}' is not in the allow-list of this bridge (${config.tools.join(', ')}).`,
                },
              })),
            ),
          ),
        ),
      );
    });
}
