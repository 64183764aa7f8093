import { catchError, concat, defer, EMPTY, from, merge, mergeMap, takeUntil, tap } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';
import * as input from '../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras, RoundEvent, RoundOutput } from '../src/codec/input/index.js';
import type { ErrorObject, ResponseFrame } from '../src/protocol/jsonrpc.js';
import { collectAnswers } from './collectAnswers.js';

export type {
  ClientAnswer,
  ClientReply,
  InputLogEntry,
  InputSchemaChecks,
  RetryExtras,
  RoundEvent,
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

/** The defaults of reference-behaviors.md §4.1 and §4.5. */
export const DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG = Object.freeze({
  maxRounds: 10,
  maxInputRequests: 16,
  inputTimeoutMs: 3_600_000,
});

/**
 * `clientCapabilities`, `nextBridgeId()` (`b-N`) and `nextElicitationId()` come from the
 * connection; `checks` are the schema checks of the asks and answers (`ajvInputChecks` of
 * `mcp-bridge-sdk`, which loads ajv and the 2025-11-25 schema, or checks of one's own).
 */
export interface InputRoundsDeps extends input.RoundsConnection {
  /** One upstream exchange for round n (from 1); no extras on round 1. Emits progress notifications, then the response; fails with a BridgeError. Unsubscribing cancels it. */
  exchange(round: number, extras: RetryExtras): Observable<RoundEvent>;
  /** All answers of the client to bridge requests (hot). */
  readonly answers$: Observable<ClientAnswer>;
  /** Emits once to stop the request: client cancel, end of input, upstream exit. */
  readonly abort$: Observable<{ readonly reason: string; readonly error?: ErrorObject }>;
  /** Log lines, without the `request <id> (<method>): ` prefix that the caller adds. */
  readonly log?: (level: input.InputLogEntry['level'], text: string) => void;
}

/**
 * Drives the rounds of one client request whose upstream answers `input_required`: asks the client
 * with bridge requests, waits for all answers, then retries upstream (reference-behaviors.md §4).
 *
 * ```text
 * upstream round 1:  -I|             I = input_required (one form)
 * answers:           ------a
 * upstream round 2:        -R|       subscribed at the frame of a
 * output:            -Q-----R|       Q = elicitation/create b-1, R = result
 * ```
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
 * 9. progress is forwarded only while it increases across rounds
 * 10. late and duplicate answers are dropped
 * 11. requestState is echoed only when the last result had one
 * 12. elicitation/complete precedes the bridge requests of a later round
 * 13. an accepted URL asked again gets the Continue form, and one completion at the end
 * 14. an upstream exit during a wait cancels the outstanding bridge requests before the error
 * 15. a failed exchange completes the accepted URLs before its error
 * 16. a refused request state is logged with the input wait of the round before
 *
 * @example
 * import type { Observable } from 'rxjs';
 * import { ajvInputChecks } from 'mcp-bridge-sdk';
 * import type { Frame, JsonObject } from 'mcp-bridge-sdk';
 * import { DEFAULT_DRIVE_INPUT_ROUNDS_CONFIG, driveInputRounds } from 'mcp-bridge-sdk/operators';
 * import type { ClientAnswer, RetryExtras, RoundEvent } from 'mcp-bridge-sdk/operators';
 * declare function upstreamCall(round: number, extras: RetryExtras): Observable<RoundEvent>; // one call per round
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
 * @see ../marbles/inputRounds.marbles.test.ts, protocol-mapping.md §4
 */
export function driveInputRounds(
  config: DriveInputRoundsConfig,
  deps: InputRoundsDeps,
): Observable<RoundOutput> {
  const { inputTimeoutMs: timeoutMs, scheduler } = config;
  input.checkRoundsSettings(config);
  return defer(() => {
    let state = input.INITIAL_ROUNDS_STATE; // per subscription
    let stopped: { readonly reason: string; readonly error?: ErrorObject } | undefined;
    const apply = (transition: input.Transition): Observable<RoundOutput> => {
      state = transition.state;
      transition.logs.forEach((entry) => deps.log?.(entry.level, entry.text));
      return from(transition.outputs);
    };

    const round = (n: number, extras: RetryExtras, inputWaitMs: number): Observable<RoundOutput> =>
      deps.exchange(n, extras).pipe(
        mergeMap((event) =>
          event.type === 'response'
            ? respond(n, extras, inputWaitMs, event.frame)
            : apply(input.forwardProgress(state, event.frame)),
        ),
        catchError((thrown: unknown) =>
          defer(() => apply(input.endRounds(state, { error: input.errorOfThrown(thrown) }))),
        ),
      );

    const respond = (n: number, extras: RetryExtras, inputWaitMs: number, frame: ResponseFrame) =>
      defer(() => {
        const carriedRequestState = extras.requestState !== undefined;
        const opened = input.openRound(state, frame, { n, carriedRequestState, inputWaitMs }, config, deps);
        const before$ = apply(opened);
        if (opened.round === undefined) return before$;
        const open = opened.round;
        const { plan, ids, requests } = open;
        const answered$ = deps.answers$.pipe(
          collectAnswers<ClientAnswer>({ ids, timeoutMs, scheduler }),
          mergeMap((event): Observable<RoundOutput> => {
            if (event.type === 'answer') {
              state = input.answerArrived(state, open, event.answer);
              return EMPTY;
            }
            if (event.type === 'timeout') {
              const error = input.inputTimeoutError(timeoutMs, plan.inputRequestCount);
              return apply(input.endRounds(state, { error }, 'no answer in time'));
            }
            const closed = input.closeRound(state, plan, event.answers);
            const retry = closed.retry;
            return concat(apply(closed), retry ? defer(() => round(n + 1, retry, event.waitedMs)) : EMPTY);
          }),
        );
        // The answers are watched before the bridge requests go out, so that none is missed.
        return concat(before$, merge(answered$, from(requests)));
      });

    const stop$ = deps.abort$.pipe(tap((abort) => (stopped = abort)));
    const cleanup$ = defer(() =>
      stopped
        ? apply(input.endRounds(state, stopped.error && { error: stopped.error }, stopped.reason))
        : EMPTY,
    );
    return concat(round(1, {}, 0).pipe(takeUntil(stop$)), cleanup$);
  });
}
