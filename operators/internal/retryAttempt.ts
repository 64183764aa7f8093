/**
 * The subscriptions of the source of one retryRefusedVersion subscription (rules in
 * ../retryRefusedVersion.ts): the first one, and the one after a refusal that lists 2026-07-28.
 */
import type { Observable, Subscriber, Subscription } from 'rxjs';
import { refusedButSupported } from '../../src/codec/versionRefusal.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import type { ErrorFrame } from '../../src/protocol/jsonrpc.js';

/** The callback of the config: called with the refusal before the source is subscribed again. */
export type OnRetry = ((refusal: ErrorFrame) => void) | undefined;

/**
 * One subscription of the source, as the observer of it. Its functions are closures over the
 * attempt, so they work when called unbound, as the `Observer` type promises. Every upstream
 * exchange of a session runs through retryRefusedVersion (src/bridge/versionRetry.ts), forwarded
 * calls included, and an attempt is made at most twice per exchange. The first one also holds the
 * state of the output subscription (`retried`, `current`) and is its teardown.
 */
export interface Attempt<T extends ExchangeEvent> {
  readonly subscriber: Subscriber<T>;
  readonly source: Observable<T>;
  readonly onRetry: OnRetry;
  /** The state of the whole output subscription, shared by its attempts (the first attempt). */
  readonly first: Attempt<T> | undefined;
  retried: boolean;
  /** This subscription of the source ended with a refusal: what it emits after it is dropped. */
  refused: boolean;
  subscription: Subscription | undefined;
  /** The subscription of the source now (on the first attempt). */
  current: Subscription | undefined;
  readonly next: (event: T) => void;
  readonly error: (error: unknown) => void;
  readonly complete: () => void;
  /** The teardown of the output; RxJS calls it as a method, so it is shared and reads `this`. */
  unsubscribe(this: Attempt<T>): void;
}

function attemptNext<T extends ExchangeEvent>(attempt: Attempt<T>, event: T): void {
  if (attempt.refused) return;
  const state = attempt.first ?? attempt;
  if (state.retried || event.type !== 'response' || !refusedButSupported(event.frame)) {
    attempt.subscriber.next(event);
    return;
  }
  attempt.refused = true;
  state.retried = true;
  try {
    attempt.onRetry?.(event.frame);
  } catch (error: unknown) {
    attempt.subscriber.error(error);
    return;
  }
  // A refusal during subscribe() is retried once subscribe() has returned (rule 5).
  if (attempt.subscription !== undefined) again(attempt);
}

/** Subscribes the source for `attempt`; the first attempt is also the output's state. */
export function subscribeAttempt<T extends ExchangeEvent>(attempt: Attempt<T>): void {
  const subscription = attempt.source.subscribe(attempt);
  attempt.subscription = subscription;
  if (attempt.refused) again(attempt);
  else (attempt.first ?? attempt).current = subscription;
  // The output may have ended during subscribe(), before its teardown knew this subscription.
  if (attempt.subscriber.closed) subscription.unsubscribe();
}

/** Ends the subscription of `attempt`, which was refused, and subscribes the source once more. */
function again<T extends ExchangeEvent>(attempt: Attempt<T>): void {
  attempt.subscription?.unsubscribe();
  if (attempt.subscriber.closed) return;
  subscribeAttempt(newAttempt(attempt.subscriber, attempt.source, attempt.onRetry, attempt.first ?? attempt));
}

export function newAttempt<T extends ExchangeEvent>(
  subscriber: Subscriber<T>,
  source: Observable<T>,
  onRetry: OnRetry,
  first: Attempt<T> | undefined,
): Attempt<T> {
  const attempt: Attempt<T> = {
    subscriber,
    source,
    onRetry,
    first,
    retried: false,
    refused: false,
    subscription: undefined,
    current: undefined,
    next: (event) => attemptNext(attempt, event),
    error: (error) => {
      if (!attempt.refused) subscriber.error(error);
    },
    complete: () => {
      if (!attempt.refused) subscriber.complete();
    },
    unsubscribe: attemptUnsubscribe,
  };
  return attempt;
}

/**
 * The teardown of the output: the subscription of the source now. Not an observer function (only
 * next, error and complete must work unbound): one function for all attempts, no closure per
 * exchange, which every forwarded call makes (bench/README.md, "The view of the upstream per round").
 */
function attemptUnsubscribe<T extends ExchangeEvent>(this: Attempt<T>): void {
  this.current?.unsubscribe();
}
