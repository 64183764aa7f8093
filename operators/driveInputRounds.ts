import { Observable, asyncScheduler } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import * as input from '../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras, RoundOutput } from '../src/codec/input/index.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import type { RequestStop } from '../src/protocol/cancelReasons.js';
import { runInputRounds } from './internal/inputRoundsRun.js';

export type {
  ClientAnswer,
  ClientReply,
  ClientRevision,
  InputLogEntry,
  InputSchemaChecks,
  RetryExtras,
  RoundOutput,
  RoundsConnection,
  RoundsSettings,
  SpecDefinition,
} from '../src/codec/input/index.js';

/** Settings of driveInputRounds. */
export interface DriveInputRoundsConfig extends input.RoundsSettings {
  /** The client method: `tools/call`, `prompts/get` or `resources/read`. */
  readonly method: string;
  /** Most upstream rounds per client request (default 10). */
  readonly maxRounds: number;
  /** Most input requests in one round (default 16). */
  readonly maxInputRequests: number;
  /** Time allowed for all answers of one round, in ms (default 3_600_000). */
  readonly inputTimeoutMs: number;
  readonly scheduler?: SchedulerLike;
}

/** The defaults of docs/input-rounds.md#input-rounds and docs/input-rounds.md#input-pending. */
export const DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG = Object.freeze({
  maxRounds: 10,
  maxInputRequests: 16,
  inputTimeoutMs: 3_600_000,
});

/**
 * `clientCapabilities`, `nextBridgeId()` (`b-N`) and `nextElicitationId()` come from the
 * connection; `checks` are the schema checks of the asks and answers (`ajvInputChecks` of
 * `mcp-bridge-sdk/node`, which loads ajv and the 2025-11-25 schema on first use, or checks of
 * one's own).
 */
export interface InputRoundsDeps extends input.RoundsConnection {
  /** One upstream exchange for round n (from 1); no extras on round 1. Emits progress notifications, then the response; fails with a BridgeError. Unsubscribing cancels it. */
  exchange(round: number, extras: RetryExtras): Observable<ExchangeEvent>;
  /** All answers of the client to bridge requests (hot). */
  readonly answers$: Observable<ClientAnswer>;
  /** Emits once to stop the request: client cancel, end of input, upstream exit. */
  readonly abort$: Observable<RequestStop>;
  /** Log lines, without the `request <id> (<method>): ` prefix that the caller adds. */
  readonly log?: (level: input.InputLogEntry['level'], text: string) => void;
  /**
   * The time limit of round n's exchange in ms, from its start (rule 19); none when absent. At
   * the limit `limitFailure(n)` is made first (a reason it sets reaches the cancellation
   * upstream), then the exchange is cut and the request ends with it as an error output.
   */
  readonly limitMs?: (round: number) => number;
  readonly limitFailure?: (round: number) => unknown;
}

/**
 * Drives the rounds of one client request whose upstream answers `input_required`: asks the client
 * with bridge requests, waits for all answers, then retries upstream (docs/input-rounds.md#input-rounds).
 *
 * ```text
 * upstream round 1:  -I|             I = input_required (one form)
 * answers:           ------a
 * upstream round 2:        -R|       subscribed at the frame of a
 * output:            -Q-----R|       Q = elicitation/create b-1, R = result
 * ```
 *
 * Progress notifications pass as `progress` outputs as they come: which of them reach the client,
 * with which token, is forwardRequest's rule 2, which drives these rounds in the product.
 *
 * A dependency that throws (`exchange`, `nextBridgeId`, `nextElicitationId`, `checks`, `log`,
 * `limitMs`; `limitFailure`'s throw is the failure at the limit)
 * fails the request as a failed exchange does (rule 18): the completions of the accepted URLs,
 * then an `error` output (a BridgeError keeps its code, any other throw is `internal`), then the
 * output completes. The output errors only when `abort$` does.
 *
 * Rules (marbles/inputRounds.marbles.test.ts):
 * 1. all answers of a round arrive before the retry
 * 2. the retry is subscribed only at the frame of the last answer
 * 3. an input timeout cancels the outstanding bridge requests before the error
 * 4. a client cancel during a wait sends notifications/cancelled for each outstanding bridge request and no response
 * 5. a client cancel during a retry round unsubscribes the upstream exchange and sends nothing to the client
 * 6. the round cap gives too_many_rounds
 * 7. the per-round cap sends nothing
 * 8. elicitation/complete precedes the response
 * 9. progress of every round passes as it comes
 * 10. late and duplicate answers are dropped
 * 11. requestState is echoed only when the last result had one
 * 12. elicitation/complete precedes the bridge requests of a later round
 * 13. an accepted URL asked again gets the Continue form, and one completion at the end
 * 14. an upstream exit during a wait cancels the outstanding bridge requests before the error
 * 15. a failed exchange completes the accepted URLs before its error
 * 16. a refused request state is logged with the input wait of the round before
 * 17. a second answer before the round ends is dropped
 * 18. a throw of exchange, nextBridgeId, nextElicitationId, checks or log ends the request with an error output
 * 19. a round with a limit is cut at it, after its failure is made, and the failure is the error output
 *
 * @example
 * import type { Observable } from 'rxjs';
 * import { ajvInputChecks } from 'mcp-bridge-sdk/node';
 * import type { Frame, JsonObject } from 'mcp-bridge-sdk';
 * import { DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, driveInputRounds } from 'mcp-bridge-sdk/operators';
 * import type { ClientAnswer, ExchangeEvent, RetryExtras } from 'mcp-bridge-sdk/operators';
 * declare function upstreamCall(round: number, extras: RetryExtras): Observable<ExchangeEvent>; // one call per round
 * declare const answers$: Observable<ClientAnswer>; // the client's answers to the b-N requests
 * declare const abort$: Observable<{ readonly reason: string }>; // a client cancel, the end of input
 * declare function send(frame: Frame): void;
 * declare function finish(result: JsonObject | undefined): void;
 * let ids = 0;
 * let elicitations = 0;
 * const outputs$ = driveInputRounds(
 *   { ...DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, method: 'tools/call' },
 *   {
 *     exchange: (round, extras) => upstreamCall(round, extras),
 *     answers$,
 *     abort$,
 *     nextBridgeId: () => `b-${++ids}`,
 *     nextElicitationId: () => `elicitation-${++elicitations}`,
 *     clientCapabilities: { elicitation: { form: {} } },
 *     checks: ajvInputChecks,
 *   },
 * );
 * outputs$.subscribe((output) => {
 *   if (output.type === 'toClient') send(output.frame);
 *   else finish(output.type === 'result' ? output.result : undefined);
 * });
 * @see ../marbles/inputRounds.marbles.test.ts, docs/input-rounds.md#input-rounds
 */
export function driveInputRounds(
  config: DriveInputRoundsConfig,
  deps: InputRoundsDeps,
): Observable<RoundOutput> {
  const { scheduler = asyncScheduler } = config;
  input.checkRoundsSettings(config);
  // The state of each subscription and its rounds: internal/inputRoundsRun.ts.
  return new Observable<RoundOutput>((subscriber) => runInputRounds(config, deps, scheduler, subscriber));
}
