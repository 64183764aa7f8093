import { Observable, Subscription, asyncScheduler } from 'rxjs';
import type { SchedulerLike } from 'rxjs';
import * as input from '../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras, RoundEvent, RoundOutput } from '../src/codec/input/index.js';
import type { ErrorObject, ResponseFrame } from '../src/protocol/jsonrpc.js';

/** The longest delay Node timers keep (collectAnswers caps there too). */
const MAX_TIMER_MS = 2_147_483_647;

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
 * 17. a second answer before the round ends is dropped
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
  const { inputTimeoutMs: timeoutMs, scheduler = asyncScheduler } = config;
  input.checkRoundsSettings(config);
  // Node timers fire at once above 2^31-1 ms: a longer limit waits that long instead.
  const timerMs = Math.min(timeoutMs, MAX_TIMER_MS);
  /*
   * One plain subscription per round instead of a graph of operators (issue 13): a round is its
   * upstream exchange, the wait for the answers of its asks (with one scheduled action for the
   * input timeout) and the next round, each owned by the round's subscription. A failure of a
   * round ends that round alone, as `catchError` did around it.
   */
  return new Observable<RoundOutput>((subscriber) => {
    let state = input.INITIAL_ROUNDS_STATE; // per subscription
    const emit = (outputs: readonly RoundOutput[], live: Subscription): void => {
      for (const output of outputs) {
        if (live.closed) return;
        subscriber.next(output);
      }
    };
    const apply = (transition: input.Transition, live: Subscription): void => {
      state = transition.state;
      transition.logs.forEach((entry) => deps.log?.(entry.level, entry.text));
      emit(transition.outputs, live);
    };

    /** Round n, owned by `host`; `done` once it has ended, failed or not. */
    const round = (
      n: number,
      exchange$: Observable<RoundEvent>,
      extras: RetryExtras,
      inputWaitMs: number,
      host: Subscription,
      done: () => void,
    ): void => {
      const own = new Subscription();
      host.add(own);
      let exchangeEnded = false;
      let answering = 0; // responses of the exchange whose rounds have not ended
      const end = (): void => {
        if (own.closed) return;
        own.unsubscribe();
        host.remove(own);
        done();
      };
      const endIfIdle = (): void => {
        if (exchangeEnded && answering === 0) end();
      };
      const fail = (thrown: unknown): void => {
        if (own.closed) return;
        own.unsubscribe();
        host.remove(own);
        apply(input.endRounds(state, { error: input.errorOfThrown(thrown) }), host);
        done();
      };
      const answered = (): void => {
        answering -= 1;
        endIfIdle();
      };
      const guarded =
        <A extends unknown[]>(step: (...args: A) => void) =>
        (...args: A): void => {
          try {
            step(...args);
          } catch (thrown) {
            fail(thrown);
          }
        };

      const respond = (frame: ResponseFrame): void => {
        const carriedRequestState = extras.requestState !== undefined;
        const opened = input.openRound(state, frame, { n, carriedRequestState, inputWaitMs }, config, deps);
        apply(opened, own);
        if (opened.round === undefined) return answered();
        const open = opened.round;
        const { plan, ids, requests } = open;
        const settle = (answers: readonly ClientAnswer[], waitedMs: number): void => {
          const closed = input.closeRound(state, plan, answers);
          apply(closed, own);
          const retry = closed.retry;
          if (retry === undefined || own.closed) return answered();
          round(n + 1, deps.exchange(n + 1, retry), retry, waitedMs, own, answered);
        };
        if (ids.length === 0) return settle([], 0);
        // The answers are watched before the bridge requests go out, so that none is missed.
        const startedAt = scheduler.now();
        const waiting = new Set(ids);
        const received = new Map<string, ClientAnswer>();
        const wait = new Subscription();
        own.add(wait);
        const stopWaiting = (): void => {
          wait.unsubscribe();
          own.remove(wait);
        };
        wait.add(
          deps.answers$.subscribe({
            next: guarded((answer: ClientAnswer) => {
              // Answers to other ids and second answers are dropped (§2.8, rule 10).
              if (wait.closed || !waiting.delete(answer.id)) return;
              received.set(answer.id, answer);
              state = input.answerArrived(state, open, answer);
              if (waiting.size > 0) return;
              stopWaiting();
              settle(
                ids.flatMap((id) => received.get(id) ?? []),
                scheduler.now() - startedAt,
              );
            }),
            error: fail,
          }),
        );
        wait.add(
          scheduler.schedule(
            guarded(() => {
              if (wait.closed) return;
              stopWaiting();
              const error = input.inputTimeoutError(timeoutMs, plan.inputRequestCount);
              apply(input.endRounds(state, { error }, 'no answer in time'), own);
              answered();
            }),
            timerMs,
          ),
        );
        emit(requests, own);
      };

      own.add(
        exchange$.subscribe({
          next: guarded((event: RoundEvent) => {
            if (own.closed) return;
            if (event.type !== 'response') return apply(input.forwardProgress(state, event.frame), own);
            answering += 1;
            respond(event.frame);
          }),
          error: fail,
          complete: () => {
            exchangeEnded = true;
            endIfIdle();
          },
        }),
      );
    };

    const exchange$ = deps.exchange(1, {});
    const work = new Subscription();
    let stopped: { readonly reason: string; readonly error?: ErrorObject } | undefined;
    const finish = (): void => {
      work.unsubscribe();
      if (stopped !== undefined) {
        apply(input.endRounds(state, stopped.error && { error: stopped.error }, stopped.reason), subscriber);
      }
      subscriber.complete();
    };
    // Subscribed before the first round, as `takeUntil` does: a stop before it starts nothing.
    work.add(
      deps.abort$.subscribe({
        next: (abort) => {
          if (stopped !== undefined || work.closed) return;
          stopped = abort;
          finish();
        },
        error: (error: unknown) => {
          work.unsubscribe();
          subscriber.error(error);
        },
      }),
    );
    if (!work.closed) round(1, exchange$, {}, 0, work, finish);
    return () => work.unsubscribe();
  });
}
