/**
 * One round of the round driver (driveRounds.ts): its upstream exchange with its limit, until the
 * response, which roundResponse.ts takes on (docs/input-rounds.md#input-rounds; rules in
 * ../driveInputRounds.ts and ../forwardRequest.ts). Round 1 is a round as every other. The state
 * its rounds share is in roundsContext.ts.
 *
 * Why here: a round owns RxJS subscriptions and a scheduled action, so it cannot live in
 * src/codec/input/, which is pure protocol logic without RxJS; src/bridge/ is above the operators
 * (protocol/codec <- operators <- bridge), so an operator cannot import from it. It is not a public
 * operator either: operators/internal/ is not exported by operators/index.ts, and the rule checks
 * (marbles/rules.test.ts) and the example checks scan only the files directly in operators/.
 */
import type { Observable, Subscription, Unsubscribable } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { RetryExtras } from '../../src/codec/input/index.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import { applyTransition, failRounds, finishRounds } from './roundsContext.js';
import type { RoundsContext } from './roundsContext.js';
import { armLimit } from './timeLimit.js';
import type { LimitedWork } from './timeLimit.js';
import { onResponse } from './roundResponse.js';

/**
 * One upstream exchange of the rounds: the observer of the exchange and the work its limit
 * watches in one object, whose functions are shared by all rounds and read the round from `this`
 * (the exchange and the limit call them as its methods): a round costs one object.
 */
interface Round extends LimitedWork, Unsubscribable {
  readonly context: RoundsContext;
  readonly n: number;
  readonly extras: RetryExtras;
  /** How long the client took to answer the round before, in ms (0 for round 1). */
  readonly inputWaitMs: number;
  /** True once the exchange answered, failed or ended: later events are dropped. */
  over: boolean;
  /** The exchange's subscription and its limit, until they are let go. */
  exchange: Subscription | undefined;
  limit: Subscription | undefined;
  next(this: Round, event: ExchangeEvent): void;
  error(this: Round, error: unknown): void;
  complete(this: Round): void;
  /** Cuts the exchange and its limit (a stop, the end of the output): later events are dropped. */
  unsubscribe(this: Round): void;
}

/** Starts round n (from 1) with the retry extras of the round before (none for round 1). */
export function startRound(
  context: RoundsContext,
  n: number,
  extras: RetryExtras,
  inputWaitMs: number,
): void {
  const { deps } = context;
  const round: Round = {
    context,
    n,
    extras,
    inputWaitMs,
    over: false,
    exchange: undefined,
    limit: undefined,
    next: roundNext,
    error: roundError,
    complete: roundComplete,
    ended: roundEnded,
    limitFailure: roundLimitFailure,
    failAtLimit: roundError,
    unsubscribe: letGo,
  };
  // Made here for every round, round 1 as the others: a throw (of the exchange or of its limit)
  // is a failure of this round's exchange (driveInputRounds rule 18), an error output, not an
  // error of the stream.
  let exchange$: Observable<ExchangeEvent>;
  let limitMs: number | undefined;
  try {
    limitMs = deps.limitMs?.(n);
    exchange$ = deps.exchange(n, extras);
  } catch (thrown: unknown) {
    return failRounds(context, thrown);
  }
  const exchange = exchange$.subscribe(round);
  // An exchange in memory may have answered while it was subscribed.
  if (round.over || context.closed) return exchange.unsubscribe();
  round.exchange = exchange;
  context.current = round;
  // The round's limit goes with its exchange, and is let go with it.
  if (limitMs !== undefined) round.limit = armLimit(context.scheduler, limitMs, round);
}

/**
 * Progress passes as it comes; the response ends the exchange (ExchangeEvent: the observable
 * completes right after it), which is let go then with its limit, also one that never completes.
 */
function roundNext(this: Round, event: ExchangeEvent): void {
  if (this.over) return;
  const { context } = this;
  try {
    if (event.type !== 'response') {
      return applyTransition(context, input.forwardProgress(context.state, event.frame), context);
    }
    this.over = true;
    this.unsubscribe();
    const { n, extras, inputWaitMs } = this;
    onResponse(
      context,
      { n, carriedRequestState: extras.requestState !== undefined, inputWaitMs },
      event.frame,
      startRound,
    );
  } catch (thrown: unknown) {
    failRounds(context, thrown);
  }
}

function roundError(this: Round, error: unknown): void {
  if (this.over) return;
  this.over = true;
  this.unsubscribe();
  failRounds(this.context, error);
}

/** An exchange that ends without a response ends the request without an output. */
function roundComplete(this: Round): void {
  if (this.over) return;
  this.over = true;
  this.unsubscribe();
  finishRounds(this.context);
}

function roundEnded(this: Round): boolean {
  return this.over || this.context.closed;
}

/** Made before the exchange is cut (withDeadline rule 6): a reason it sets reaches upstream. */
function roundLimitFailure(this: Round): unknown {
  return this.context.deps.limitFailure?.(this.n);
}

function letGo(this: Round): void {
  this.over = true;
  const { exchange, limit, context } = this;
  this.exchange = undefined;
  this.limit = undefined;
  if (context.current === this) context.current = undefined;
  limit?.unsubscribe();
  exchange?.unsubscribe();
}
