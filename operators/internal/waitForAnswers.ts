/**
 * The answer bookkeeping of one open round of driveInputRounds: which of its bridge requests still
 * wait for an answer, the first answer to each, and the input timeout (docs/input-rounds.md#input-rounds
 * step 3, docs/input-rounds.md#input-pending, docs/lines.md#lines-client-responses). It reports how the wait ended; the round (inputRound.ts) decides what
 * follows. One subscription to the answers and one scheduled action per round.
 */
import { Subscription } from 'rxjs';
import * as input from '../../src/codec/input/index.js';
import type { ClientAnswer } from '../../src/codec/input/index.js';
import type { RoundsContext } from './roundsContext.js';
import { armLimit } from './timeLimit.js';
import type { LimitedWork } from './timeLimit.js';

/** How a wait ends: `all` or `timeout`, once; `fail` when the answers fail or either of those throws. */
export interface AnswerWaitEnds {
  /** Every bridge request has its answer: the answers in the order of the asks, and the wait in ms. */
  readonly all: (answers: readonly ClientAnswer[], waitedMs: number) => void;
  /** The input timeout passed before the last answer. */
  readonly timeout: () => void;
  readonly fail: (thrown: unknown) => void;
}

/**
 * Waits, as the rounds' current work, for the answers to the bridge requests `round.ids`. Each answer that
 * arrives updates the rounds state at once (an accepted URL is remembered even if the round never
 * ends, docs/input-rounds.md#input-url-again). Call it before the bridge requests go out, so that no answer is missed.
 */
export function waitForAnswers(context: RoundsContext, round: input.OpenRound, ends: AnswerWaitEnds): void {
  const { scheduler } = context;
  const { ids } = round;
  const startedAt = scheduler.now();
  const waiting = new Set(ids);
  const received = new Map<string, ClientAnswer>();
  // The wait is the rounds' current work: a stop cuts it.
  const wait = new Subscription();
  context.current = wait;
  const stopWaiting = (): void => {
    if (context.current === wait) context.current = undefined;
    wait.unsubscribe();
  };
  wait.add(
    context.deps.connection.answers$.subscribe({
      next: (answer) => {
        try {
          // Answers to other ids and second answers are dropped (docs/lines.md#lines-client-responses; driveInputRounds rules 10, 17).
          if (wait.closed || !waiting.delete(answer.id)) return;
          received.set(answer.id, answer);
          context.state = input.answerArrived(context.state, round, answer);
          if (waiting.size > 0) return;
          stopWaiting();
          ends.all(
            ids.flatMap((id) => received.get(id) ?? []),
            scheduler.now() - startedAt,
          );
        } catch (thrown) {
          ends.fail(thrown);
        }
      },
      error: ends.fail,
    }),
  );
  // The input timeout is a time limit as every other (timeLimit.ts, with its cap).
  const limit: AnswerLimit = {
    wait,
    stopWaiting,
    ends,
    ended: answerWaitEnded,
    limitFailure: noFailure,
    failAtLimit: answerTimeout,
  };
  wait.add(armLimit(scheduler, context.settings.inputTimeoutMs, limit));
}

/** The input timeout of one wait (timeLimit.ts calls these as its methods). */
interface AnswerLimit extends LimitedWork {
  readonly wait: Subscription;
  readonly stopWaiting: () => void;
  readonly ends: AnswerWaitEnds;
}

function answerWaitEnded(this: AnswerLimit): boolean {
  return this.wait.closed;
}
/** The round makes the timeout's error itself (inputRound.ts): nothing to make here. */
function noFailure(this: AnswerLimit): undefined {
  return undefined;
}
function answerTimeout(this: AnswerLimit): void {
  try {
    this.stopWaiting();
    this.ends.timeout();
  } catch (thrown) {
    this.ends.fail(thrown);
  }
}
