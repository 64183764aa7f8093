/**
 * One round of driveInputRounds: its upstream exchange, the wait for the answers of its asks (with
 * one scheduled action for the input timeout) and the hand-over to the next round
 * (reference-behaviors.md §4; rules in ../driveInputRounds.ts).
 *
 * Why here: a round owns RxJS subscriptions and a scheduled action, so it cannot live in
 * src/codec/input/, which is pure protocol logic without RxJS; src/bridge/ is above the operators
 * (protocol/codec <- operators <- bridge), so an operator cannot import from it. It is not a public
 * operator either: operators/internal/ is not exported by operators/index.ts, and the rule checks
 * (marbles/rules.test.ts) and the example checks scan only the files directly in operators/.
 */
import { Subscription } from 'rxjs';
import type { Observable, SchedulerLike, Subscriber } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras, RoundEvent, RoundOutput } from '../../src/codec/input/index.js';
import type { ResponseFrame } from '../../src/protocol/jsonrpc.js';

/** The longest delay Node timers keep (collectAnswers caps there too). */
const MAX_TIMER_MS = 2_147_483_647;

/** What a round needs of the operator's dependencies (InputRoundsDeps has all of it). */
export interface RoundDeps extends input.RoundsConnection {
  exchange(round: number, extras: RetryExtras): Observable<RoundEvent>;
  readonly answers$: Observable<ClientAnswer>;
  readonly log?: (level: input.InputLogEntry['level'], text: string) => void;
}

/** The rounds of one subscription: made once per subscription, shared by all its rounds. */
export interface RoundsContext {
  /** The rounds state, replaced by each transition. */
  state: input.RoundsState;
  readonly settings: input.RoundsSettings;
  readonly deps: RoundDeps;
  readonly scheduler: SchedulerLike;
  /** The input timeout as scheduled: capped at MAX_TIMER_MS. */
  readonly timerMs: number;
  /** Emits outputs to the subscriber while `live` is open. */
  emit(outputs: readonly RoundOutput[], live: Subscription): void;
  /** Takes the transition's state, logs its lines, emits its outputs while `live` is open. */
  apply(transition: input.Transition, live: Subscription): void;
}

/** The context of the rounds of one subscription. */
export function roundsContext(
  settings: input.RoundsSettings,
  deps: RoundDeps,
  scheduler: SchedulerLike,
  subscriber: Subscriber<RoundOutput>,
): RoundsContext {
  const context: RoundsContext = {
    state: input.INITIAL_ROUNDS_STATE,
    settings,
    deps,
    scheduler,
    // Node timers fire at once above 2^31-1 ms: a longer limit waits that long instead.
    timerMs: Math.min(settings.inputTimeoutMs, MAX_TIMER_MS),
    emit: (outputs, live) => {
      for (const output of outputs) {
        if (live.closed) return;
        subscriber.next(output);
      }
    },
    apply: (transition, live) => {
      context.state = transition.state;
      transition.logs.forEach((entry) => deps.log?.(entry.level, entry.text));
      context.emit(transition.outputs, live);
    },
  };
  return context;
}

/**
 * Round n, owned by `host`; `done` once it has ended, failed or not. One plain subscription per
 * round instead of a graph of operators (issue 13). A failure of a round ends that round alone, as
 * `catchError` did around it.
 */
export function runRound(
  context: RoundsContext,
  n: number,
  exchange$: Observable<RoundEvent>,
  extras: RetryExtras,
  inputWaitMs: number,
  host: Subscription,
  done: () => void,
): void {
  const { settings, deps, scheduler } = context;
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
    context.apply(input.endRounds(context.state, { error: input.errorOfThrown(thrown) }), host);
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
    const opened = input.openRound(
      context.state,
      frame,
      { n, carriedRequestState, inputWaitMs },
      settings,
      deps,
    );
    context.apply(opened, own);
    if (opened.round === undefined) return answered();
    const open = opened.round;
    const { plan, ids, requests } = open;
    const settle = (answers: readonly ClientAnswer[], waitedMs: number): void => {
      const closed = input.closeRound(context.state, plan, answers);
      context.apply(closed, own);
      const retry = closed.retry;
      if (retry === undefined || own.closed) return answered();
      runRound(context, n + 1, deps.exchange(n + 1, retry), retry, waitedMs, own, answered);
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
          context.state = input.answerArrived(context.state, open, answer);
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
          const error = input.inputTimeoutError(settings.inputTimeoutMs, plan.inputRequestCount);
          context.apply(input.endRounds(context.state, { error }, 'no answer in time'), own);
          answered();
        }),
        context.timerMs,
      ),
    );
    context.emit(requests, own);
  };

  own.add(
    exchange$.subscribe({
      next: guarded((event: RoundEvent) => {
        if (own.closed) return;
        if (event.type !== 'response')
          return context.apply(input.forwardProgress(context.state, event.frame), own);
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
}
