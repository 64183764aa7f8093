/**
 * One round of driveInputRounds: its upstream exchange, the round it opens on the upstream response,
 * and the hand-over to the next round once the answers are in (docs/input-rounds.md#input-rounds; rules in
 * ../driveInputRounds.ts). The state its rounds share is in roundsContext.ts, the wait for the
 * answers of a round in waitForAnswers.ts.
 *
 * Why here: a round owns RxJS subscriptions and a scheduled action, so it cannot live in
 * src/codec/input/, which is pure protocol logic without RxJS; src/bridge/ is above the operators
 * (protocol/codec <- operators <- bridge), so an operator cannot import from it. It is not a public
 * operator either: operators/internal/ is not exported by operators/index.ts, and the rule checks
 * (marbles/rules.test.ts) and the example checks scan only the files directly in operators/.
 */
import { Subscription } from 'rxjs';
import type { Observable } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { ClientAnswer, RetryExtras } from '../../src/codec/input/index.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import type { ResponseFrame } from '../../src/protocol/jsonrpc.js';
import type { RoundsContext } from './roundsContext.js';
import { waitForAnswers } from './waitForAnswers.js';

/**
 * Round n, owned by `host`; `done` once it has ended, failed or not. One plain subscription per
 * round instead of a graph of operators. A failure of a round ends that round alone, as
 * `catchError` did around it.
 */
export function runRound(
  context: RoundsContext,
  n: number,
  exchange$: Observable<ExchangeEvent>,
  extras: RetryExtras,
  inputWaitMs: number,
  host: Subscription,
  done: () => void,
): void {
  const { settings, deps } = context;
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
    const settle = (answers: readonly ClientAnswer[], waitedMs: number): void => {
      const closed = input.closeRound(context.state, open.plan, answers);
      context.apply(closed, own);
      const retry = closed.retry;
      if (retry === undefined || own.closed) return answered();
      runRound(context, n + 1, deps.exchange(n + 1, retry), retry, waitedMs, own, answered);
    };
    if (open.ids.length === 0) return settle([], 0);
    const timeout = (): void => {
      const error = input.inputTimeoutError(settings.inputTimeoutMs, open.plan.inputRequestCount);
      context.apply(input.endRounds(context.state, { error }, 'no answer in time'), own);
      answered();
    };
    // The answers are watched before the bridge requests go out, so that none is missed.
    waitForAnswers(context, open, own, { all: settle, timeout, fail });
    context.emit(open.requests, own);
  };

  own.add(
    exchange$.subscribe({
      next: (event) => {
        try {
          if (own.closed) return;
          if (event.type !== 'response')
            return context.apply(input.forwardProgress(context.state, event.frame), own);
          answering += 1;
          respond(event.frame);
        } catch (thrown) {
          fail(thrown);
        }
      },
      error: fail,
      complete: () => {
        exchangeEnded = true;
        endIfIdle();
      },
    }),
  );
}
