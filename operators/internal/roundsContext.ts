/**
 * The state shared by the rounds of one subscription of driveInputRounds: the rounds state that
 * each transition replaces, the dependencies, and the one way a transition reaches the subscriber
 * (its log lines, then its outputs while the round that made it is live). Made once per
 * subscription; its rounds (inputRound.ts) and their answer waits (waitForAnswers.ts) share it.
 */
import type { Observable, SchedulerLike, Subscriber, Subscription } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras, RoundOutput } from '../../src/codec/input/index.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';

/** What a round needs of the operator's dependencies (InputRoundsDeps has all of it). */
export interface RoundDeps extends input.RoundsConnection {
  exchange(round: number, extras: RetryExtras): Observable<ExchangeEvent>;
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
