import { asyncScheduler, defer, filter, map, merge, mergeMap, of, takeWhile, timer } from 'rxjs';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';

/** Settings of collectAnswers. */
export interface CollectAnswersConfig {
  /** The ids of the bridge requests of one round, in the order of its asks. */
  readonly ids: readonly string[];
  /** Time allowed for all answers of the round, in ms (reference default 3_600_000); capped at 2^31-1 ms. */
  readonly timeoutMs: number;
  readonly scheduler?: SchedulerLike | undefined;
}

/** The time limit of a round when the caller has none: one hour (docs/input-rounds.md#input-rounds). */
export const DEFAULT_COLLECT_ANSWERS_CONFIG: Readonly<Pick<CollectAnswersConfig, 'timeoutMs'>> =
  Object.freeze({
    timeoutMs: 3_600_000,
  });

/** What `collectAnswers` emits. */
export type AnswerEvent<A extends { readonly id: string }> =
  /** The first answer to one bridge request of the round. */
  | { readonly type: 'answer'; readonly answer: A }
  /** All answers, in the order of `ids`, at the frame of the last one, and the wait in ms; then completes. */
  | { readonly type: 'all'; readonly answers: readonly A[]; readonly waitedMs: number }
  /** The time passed first: the ids still without an answer, in order; then completes. */
  | { readonly type: 'timeout'; readonly missing: readonly string[] };

/**
 * Waits for the answers of the client to the bridge requests of one round (docs/input-rounds.md#input-rounds
 *  step 3, docs/input-rounds.md#input-pending, docs/lines.md#lines-client-responses).
 *
 * ```text
 * answers:  --a--x--a--b--      ids [a, b]; x is unknown
 * output:   --A--------(BL)|    A, B = 'answer', L = 'all' [a, b]
 * ```
 *
 * Rules (marbles/collectAnswers.marbles.test.ts):
 * 1. all answers arrive before the round ends
 * 2. answers to other ids and second answers are dropped
 * 3. the time limit ends the wait with the missing ids
 * 4. a round without bridge requests ends at once
 *
 * @example
 * import { Subject } from 'rxjs';
 * import { collectAnswers } from 'mcp-bridge-sdk/operators';
 * import type { ClientAnswer } from 'mcp-bridge-sdk/operators';
 * const answers$ = new Subject<ClientAnswer>();
 * let ids: string[] = [];
 * answers$.pipe(collectAnswers({ ids: ['b-1', 'b-2'], timeoutMs: 60_000 })).subscribe((event) => {
 *   if (event.type === 'all') ids = event.answers.map((answer) => String(answer.id));
 * });
 * answers$.next({ id: 'b-2', result: { action: 'decline' } });
 * answers$.next({ id: 'b-1', result: { action: 'accept', content: {} } });
 * // ids: ['b-1', 'b-2']
 * @see ../marbles/collectAnswers.marbles.test.ts
 */
export function collectAnswers<A extends { readonly id: string }>(
  config: CollectAnswersConfig,
): OperatorFunction<A, AnswerEvent<A>> {
  const { ids, scheduler = asyncScheduler } = config;
  if (!(config.timeoutMs >= 0)) throw new RangeError('timeoutMs must be ≥ 0');
  // Node timers fire at once above 2^31-1 ms: a longer limit waits that long instead.
  const timeoutMs = Math.min(config.timeoutMs, 2_147_483_647);
  if (new Set(ids).size !== ids.length) throw new RangeError('ids must be unique');
  return (answers$) =>
    defer((): Observable<AnswerEvent<A>> => {
      if (ids.length === 0) return of({ type: 'all', answers: [], waitedMs: 0 });
      const startedAt = scheduler.now();
      const waiting = new Set(ids); // per subscription: the ids without an answer
      const received = new Map<string, A>();
      const answered$ = answers$.pipe(
        filter((answer) => waiting.delete(answer.id)),
        mergeMap((answer): AnswerEvent<A>[] => {
          received.set(answer.id, answer);
          if (waiting.size > 0) return [{ type: 'answer', answer }];
          const answers = ids.flatMap((id) => received.get(id) ?? []);
          return [
            { type: 'answer', answer },
            { type: 'all', answers, waitedMs: scheduler.now() - startedAt },
          ];
        }),
      );
      const timeout$ = timer(timeoutMs, scheduler).pipe(
        map((): AnswerEvent<A> => ({ type: 'timeout', missing: ids.filter((id) => waiting.has(id)) })),
      );
      return merge(answered$, timeout$).pipe(takeWhile((event) => event.type === 'answer', true));
    });
}
