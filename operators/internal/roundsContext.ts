/**
 * The state shared by the rounds of one client request (driveRounds.ts): the rounds state that
 * each transition replaces, the dependencies, the work that a stop cuts, and the one way a
 * transition reaches the output (its log lines, then its outputs while the request is open).
 * Made once per request; its rounds (inputRound.ts) and their answer waits (waitForAnswers.ts)
 * share it.
 */
import type { Observable, SchedulerLike, Unsubscribable } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras, RoundOutput } from '../../src/codec/input/index.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';

/**
 * What the rounds of one request need: the connection's side (the same object for all its
 * requests: nothing is copied per request), the exchange of each round, its limit and the log.
 */
export interface RoundDeps {
  readonly connection: input.RoundsConnection & { readonly answers$: Observable<ClientAnswer> };
  /** The upstream exchange of round n (from 1), with the retry extras of the round before. */
  readonly exchange: (round: number, extras: RetryExtras) => Observable<ExchangeEvent>;
  readonly log?: ((level: input.InputLogEntry['level'], text: string) => void) | undefined;
  /** InputRoundsDeps.limitMs and limitFailure (driveInputRounds rule 19). */
  readonly limitMs?: ((round: number) => number) | undefined;
  readonly limitFailure?: ((round: number) => unknown) | undefined;
}

/** Where the rounds' outputs go: the subscriber of driveInputRounds, or forwardRequest's request. */
export interface RoundsSink {
  next(output: RoundOutput): void;
  error(error: unknown): void;
  complete(): void;
}

/** What an output waits for: it is emitted only while this is open. */
export interface Live {
  readonly closed: boolean;
}

/** The rounds of one request: made once per request, shared by all its rounds. */
export interface RoundsContext {
  /** The rounds state, replaced by each transition. */
  state: input.RoundsState;
  readonly settings: input.RoundsSettings;
  readonly deps: RoundDeps;
  readonly scheduler: SchedulerLike;
  readonly sink: RoundsSink;
  /** The output's own end (its subscriber): the outputs of a stop go out while it is open. */
  readonly live: Live;
  /** The current round's exchange or answer wait: what a stop cuts. */
  current: Unsubscribable | undefined;
  /** True once the request ended: nothing more runs, and only a stop's outputs go out. */
  closed: boolean;
}

/** The context of the rounds of one request. */
export function roundsContext(
  settings: input.RoundsSettings,
  deps: RoundDeps,
  scheduler: SchedulerLike,
  sink: RoundsSink,
  live: Live,
): RoundsContext {
  return {
    state: input.INITIAL_ROUNDS_STATE,
    settings,
    deps,
    scheduler,
    sink,
    live,
    current: undefined,
    closed: false,
  };
}

/** Emits outputs to the sink while `live` is open. */
export function emitOutputs(context: RoundsContext, outputs: readonly RoundOutput[], live: Live): void {
  for (const output of outputs) {
    if (live.closed) return;
    context.sink.next(output);
  }
}

/** Takes the transition's state, logs its lines, emits its outputs while `live` is open. */
export function applyTransition(context: RoundsContext, transition: input.Transition, live: Live): void {
  context.state = transition.state;
  for (const entry of transition.logs) context.deps.log?.(entry.level, entry.text);
  emitOutputs(context, transition.outputs, live);
}

/** Ends the rounds without an output (the teardown of the output): the current work is cut. */
export function closeRounds(context: RoundsContext): void {
  context.closed = true;
  const current = context.current;
  context.current = undefined;
  current?.unsubscribe();
}

/** The request ended with the outputs it had: the work stops, the output completes. */
export function finishRounds(context: RoundsContext): void {
  if (context.closed) return;
  closeRounds(context);
  context.sink.complete();
}

/**
 * The request ends with the error of `thrown` (a failed exchange or a throw of a dependency,
 * driveInputRounds rule 18): the work stops, then the error output.
 */
export function failRounds(context: RoundsContext, thrown: unknown): void {
  if (context.closed) return;
  closeRounds(context);
  applyTransition(
    context,
    input.endRounds(context.state, { error: input.errorOfThrown(thrown) }),
    context.live,
  );
  context.sink.complete();
}
