import { Observable, asyncScheduler } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import type { InputSchemaChecks, RoundOutput, RoundsConnection } from '../src/codec/input/index.js';
import type { ClientAnswer } from '../src/codec/input/index.js';
import type { UpstreamConnection } from '../src/ports/upstream.js';
import type { JsonObject, RequestFrame, RequestId } from '../src/protocol/jsonrpc.js';
import type { RequestStop } from '../src/protocol/cancelReasons.js';
import { runForward } from './internal/forwardRun.js';

/** Settings of forwardRequest: the time limits and caps of one connection's requests. */
export interface ForwardRequestConfig {
  /** List methods and `completion/complete`, in ms. */
  readonly listTimeoutMs: number;
  /** Round 1 of `prompts/get` and `resources/read`, in ms. */
  readonly readTimeoutMs: number;
  /** Each round of `tools/call`, in ms. */
  readonly callTimeoutMs: number;
  /** Rounds after the first of `prompts/get` and `resources/read`, and the wait for answers, in ms. */
  readonly inputTimeoutMs: number;
  /** Most upstream rounds of one request, and most input requests in one round. */
  readonly maxRounds: number;
  readonly maxInputRequests: number;
  /** The first slow-request line after, then one every, in ms. */
  readonly slowFirstMs: number;
  readonly slowEveryMs: number;
  /** Virtual time in tests; the bridge passes one lane scheduler per connection. Default asyncScheduler. */
  readonly scheduler?: SchedulerLike;
}

/** The defaults of docs/requests.md#requests-deadlines and docs/input-rounds.md#input-rounds. */
export const DEFAULT_FORWARD_REQUEST_CONFIG = Object.freeze({
  listTimeoutMs: 120_000,
  readTimeoutMs: 120_000,
  callTimeoutMs: 3_600_000,
  inputTimeoutMs: 3_600_000,
  maxRounds: 10,
  maxInputRequests: 16,
  slowFirstMs: 10_000,
  slowEveryMs: 30_000,
});

/** Why a running request stops: a client cancel, the end of input, the loss of the upstream. */
export type ForwardAbort = RequestStop;

/** What the requests of one connection share; each function is guarded (rule 12). */
export interface ForwardRequestDeps<T> {
  /** One exchange per round; unsubscribing it cancels it upstream with `cancelReason`. */
  readonly upstream: Pick<UpstreamConnection, 'request'>;
  /** The `_meta` of an upstream round of `request`, made at the start of that round. */
  meta(request: RequestFrame): JsonObject;
  /** The output for the client of one event of `request`; undefined sends nothing. */
  toClient(request: RequestFrame, output: RoundOutput): T | undefined;
  /** While a request runs, how a stop reaches it; `stop` may be called at once. */
  track(id: RequestId, stop: (abort: ForwardAbort) => void): void;
  /** The request ended: its `track` is void. */
  untrack(id: RequestId, stop: (abort: ForwardAbort) => void): void;
  /** The connection's side of input rounds; without `checks` an input request ends the request (rule 11). */
  readonly rounds: Omit<RoundsConnection, 'checks'> & {
    readonly answers$: Observable<ClientAnswer>;
    readonly checks?: InputSchemaChecks;
  };
  /** Log lines: the slow-request lines and those of the input rounds, each naming its request. */
  readonly log?: (level: 'err' | 'warn' | 'info' | 'debug', text: string) => void;
}

/**
 * Forwards one client request upstream and back (docs/requests.md#requests-deadlines,
 * docs/requests.md#requests-progress, docs/requests.md#requests-slow-lines,
 * docs/input-rounds.md#input-rounds): returns, per connection, the function from a client
 * request to its outputs for the client, `deps.toClient` of each event.
 *
 * ```text
 * upstream round 1:  -p-P-R|      p, P = progress 1, 2; R = result
 * output:            -p-P-R|      through toClient; limit of the method
 * ```
 *
 * Every round, round 1 as the others, is a round of the one round driver that driveInputRounds
 * runs too (internal/driveRounds.ts): one upstream exchange with its own limit (the one time-limit
 * action of internal/timeLimit.ts, armed by the round) and, when a result of `tools/call`,
 * `prompts/get` or `resources/read` says `input_required`, the input requests and the wait for
 * their answers before the next round. The slow-request lines run beside it on the same
 * scheduler; a stop cuts it as `takeUntil` does.
 *
 * Rules (marbles/forwardRequest.marbles.test.ts):
 * 1. the response of round 1 is the last output: its result or its error
 * 2. progress reaches the client only with its token and only while it increases across rounds
 * 3. round 1 has the limit of its method, and progress does not extend it
 * 4. at the limit the exchange is cut with the reason 'the request timed out' and a timeout error is the last output
 * 5. a client cancel cuts the exchange with its reason and sends nothing
 * 6. an abort with an error cuts the exchange and answers with that error
 * 7. input_required of tools/call, prompts/get or resources/read starts the input rounds
 * 8. input_required of another method is invalid_response
 * 9. each later round has its own limit from its start
 * 10. a slow request logs a line after slowFirstMs, then every slowEveryMs, saying what it waits for
 * 11. without checks an input request ends the request with internal and a log line
 * 12. a throw of meta or of the exchange is an error output; a throw of toClient or log errors the output
 * 13. a request stopped when it is tracked starts no exchange
 *
 * @example
 * import type { Observable } from 'rxjs';
 * import { EMPTY } from 'rxjs';
 * import type { RequestFrame } from 'mcp-bridge-sdk';
 * import { DEFAULT_FORWARD_REQUEST_CONFIG, forwardRequest } from 'mcp-bridge-sdk/operators';
 * import type { ExchangeEvent, RoundOutput } from 'mcp-bridge-sdk/operators';
 * declare function call(method: string, params: object): Observable<ExchangeEvent>; // the upstream
 * const forward = forwardRequest<RoundOutput>(DEFAULT_FORWARD_REQUEST_CONFIG, {
 *   upstream: { request: (method, params) => call(method, params) },
 *   meta: () => ({}),
 *   toClient: (_request, output) => output,
 *   track: () => undefined,
 *   untrack: () => undefined,
 *   rounds: {
 *     answers$: EMPTY,
 *     clientCapabilities: {},
 *     nextBridgeId: () => 'b-1',
 *     nextElicitationId: () => 'elicitation-1',
 *   },
 * });
 * declare const request: RequestFrame; // { jsonrpc: '2.0', id: 1, method: 'tools/list' }
 * const outputs: RoundOutput[] = [];
 * forward(request).subscribe((output) => outputs.push(output));
 * // outputs, after the upstream answered: [{ type: 'result', result: { tools: [] } }]
 * @see ../marbles/forwardRequest.marbles.test.ts, docs/requests.md#requests-deadlines
 */
export function forwardRequest<T>(
  config: ForwardRequestConfig,
  deps: ForwardRequestDeps<T>,
): (request: RequestFrame) => Observable<T> {
  for (const key of [
    'listTimeoutMs',
    'readTimeoutMs',
    'callTimeoutMs',
    'slowFirstMs',
    'slowEveryMs',
  ] as const) {
    if (!(config[key] >= 0)) throw new RangeError(`${key} must be ≥ 0`);
  }
  const shared = { config, deps, scheduler: config.scheduler ?? asyncScheduler };
  // The state of each subscription: internal/forwardRun.ts.
  return (request) => new Observable<T>((subscriber) => runForward(shared, request, subscriber));
}
