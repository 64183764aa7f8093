/**
 * The tool definitions a `tools/call` over HTTP needs (docs/http-upstream.md#http-x-mcp-header, docs/results.md#results-upstream-errors trap 31):
 * a call of a tool that no `tools/list` result named is sent after a listing of every page, and a
 * call refused with -32020 (header mismatch: the cached definition is stale) is sent once more
 * after a new listing. -32020 means the server refused the request before it ran the tool, so the
 * second send cannot run it twice.
 */
import {
  EMPTY,
  catchError,
  concat,
  defer,
  expand,
  filter,
  finalize,
  ignoreElements,
  mergeMap,
  of,
  share,
  take,
} from 'rxjs';
import type { Observable } from 'rxjs';
import type { Logger } from '../../ports/logger.js';
import type { ExchangeEvent, ExchangeOptions } from '../../ports/upstream.js';
import type { JsonObject } from '../../protocol/jsonrpc.js';
import { isErrorResponse, isObject } from '../../protocol/jsonrpc.js';
import { META_LOG_LEVEL } from '../../protocol/metaKey.js';

/** `HeaderMismatch` of 2026-07-28 (docs/errors.md#errors-upstream-codes). */
export const HEADER_MISMATCH = -32020;
/** A server whose cursors never end stops here. */
export const MAX_TOOL_PAGES = 1000;

const RESERVED = 'io.modelcontextprotocol/';

/** One POST of the connection (the exchange without any tool-definition logic). */
export type Send = (
  method: string,
  params: JsonObject,
  options: ExchangeOptions,
) => Observable<ExchangeEvent>;

/** What {@link createToolCalls} needs from the connection. */
export interface ToolCallDeps {
  readonly send: Send;
  /** True when a `tools/list` result named the tool (the results teach the cache as they pass). */
  readonly knowsTool: (name: string) => boolean;
  readonly logger: Logger;
  readonly scope: string;
}

/** The protocol keys of the call's `_meta` for the listing: no log level, no client keys. */
function listingMeta(callParams: JsonObject): JsonObject {
  const meta = callParams['_meta'];
  const out: JsonObject = {};
  if (!isObject(meta)) return out;
  for (const [key, value] of Object.entries(meta)) {
    if (key.startsWith(RESERVED) && key !== META_LOG_LEVEL) out[key] = value;
  }
  return out;
}

const nextCursor = (event: ExchangeEvent): string | undefined => {
  if (event.type !== 'response' || isErrorResponse(event.frame)) return undefined;
  const cursor = event.frame.result['nextCursor'];
  return typeof cursor === 'string' ? cursor : undefined;
};

const isHeaderMismatch = (event: ExchangeEvent): boolean =>
  event.type === 'response' && isErrorResponse(event.frame) && event.frame.error.code === HEADER_MISMATCH;

/**
 * `tools/call` with the tool definitions it needs. Concurrent calls share one listing; a listing
 * that fails is logged (debug) and the call is sent anyway (the server then decides).
 */
export function createToolCalls(
  deps: ToolCallDeps,
): (params: JsonObject, options: ExchangeOptions) => Observable<ExchangeEvent> {
  const { send, logger, scope } = deps;
  let listing$: Observable<never> | undefined;

  /** Every page of `tools/list`, for what the cache learns; emits nothing, never fails. */
  const listAll = (meta: JsonObject, options: ExchangeOptions): Observable<never> => {
    const seen = new Set<string>();
    const page = (cursor: string | undefined): Observable<ExchangeEvent> =>
      send('tools/list', cursor === undefined ? { _meta: meta } : { _meta: meta, cursor }, options).pipe(
        filter((event) => event.type === 'response'),
      );
    return page(undefined).pipe(
      expand((event) => {
        const cursor = nextCursor(event);
        if (cursor === undefined || seen.has(cursor)) return EMPTY;
        seen.add(cursor);
        return page(cursor);
      }),
      take(MAX_TOOL_PAGES),
      catchError((error: unknown) => {
        // The call goes on: its own failure, if any, is what the client sees.
        if (logger.enabled('debug')) {
          const code = (error as { code?: unknown } | null)?.code;
          const why = typeof code === 'string' ? code : 'failure';
          logger.log(scope, 'debug', `the listing of the tools failed (${why}); the call goes without it`);
        }
        return EMPTY;
      }),
      ignoreElements(),
    );
  };

  const learn = (params: JsonObject, options: ExchangeOptions): Observable<never> =>
    defer(() => {
      listing$ ??= listAll(listingMeta(params), options).pipe(
        finalize(() => (listing$ = undefined)),
        share(),
      );
      return listing$;
    });

  return (params, options) => {
    const name = params['name'];
    const call$ = defer(() => send('tools/call', params, options));
    const first$ =
      typeof name === 'string' && !deps.knowsTool(name)
        ? defer(() => {
            if (logger.enabled('debug')) {
              logger.log(
                scope,
                'debug',
                'tools/call of a tool that no tools/list named: the bridge lists the tools first',
              );
            }
            return concat(learn(params, options), call$);
          })
        : call$;
    return first$.pipe(
      mergeMap((event) => {
        if (!isHeaderMismatch(event)) return of(event);
        logger.log(
          scope,
          'info',
          'the upstream server refused the headers of a tools/call (-32020); the bridge lists the tools again and sends the call once more',
        );
        return concat(learn(params, options), call$);
      }),
    );
  };
}
