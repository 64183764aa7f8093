/**
 * What the telemetry tests share (test/telemetry/*.test.ts, test/oauth/signInSpans.test.ts): a
 * bridge with a telemetry in front of an upstream connection, fed client frames as lines; the
 * client's `initialize`; the fake upstream's tool `ask` (one form question, then `ok`); and the
 * text of exported spans for the secret scan (docs/observability.md#observability-secrets).
 *
 *   const { send, out } = telemetryBridge(fake.connection, telemetry);
 *   send(INITIALIZE);
 */
import { Subject, of } from 'rxjs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import type { BridgeLimits } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';
import { DEFAULT_MAX_DEPTH, parseLine } from '../../src/protocol/parseLine.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import type { Telemetry } from '../../src/ports/telemetry.js';
import type { UpstreamConnection } from '../../src/ports/upstream.js';
import type { FakeHandler } from '../../src/testing/fakeUpstream.js';

/** The `initialize` of a 2025-11-25 client that declares form elicitation. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-11-25',
    capabilities: { elicitation: { form: {} } },
    clientInfo: { name: 'c', version: '1' },
  },
};

/** The fake upstream's `ask`: one form question (`q`, property `n`) on the first round, then `ok`. */
export const askTool: FakeHandler = (params) =>
  params['inputResponses'] === undefined
    ? {
        resultType: 'input_required',
        inputRequests: {
          q: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: 'Name?',
              requestedSchema: { type: 'object', properties: { n: { type: 'string' } } },
            },
          },
        },
      }
    : { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] };

/** A bridge with `telemetry` in front of `connection`: `send` a client frame, `out` what it wrote. */
export function telemetryBridge(
  connection: UpstreamConnection,
  telemetry: Telemetry,
  limits: BridgeLimits = DEFAULT_LIMITS,
): { send: (frame: object) => void; out: Frame[] } {
  const lines$ = new Subject<Inbound>();
  const out: Frame[] = [];
  createBridge(
    { version: '9.9.9', fallbackName: 'fake', limits },
    {
      connect: () => of(connection),
      logger: { log: () => undefined, enabled: () => false },
      checks: ajvInputChecks,
      telemetry,
    },
  )(lines$).subscribe((frame) => out.push(frame));
  const send = (frame: object): void =>
    lines$.next(
      parseLine(
        { kind: 'line', bytes: new TextEncoder().encode(JSON.stringify(frame)) },
        { maxDepth: DEFAULT_MAX_DEPTH, maxLineBytes: 1 << 20 },
      ),
    );
  return { send, out };
}

/** Everything a span exports, as text, one line a span: the lines of the secret scan. */
export const exportedSpans = (spans: readonly ReadableSpan[]): string[] =>
  spans.map((span) =>
    JSON.stringify({
      name: span.name,
      attributes: span.attributes,
      events: span.events,
      links: span.links,
      resource: span.resource.attributes,
      status: span.status,
    }),
  );
