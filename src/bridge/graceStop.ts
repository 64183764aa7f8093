/**
 * The one end-of-input grace (docs/lifecycle.md#lifecycle-end-of-input,
 * docs/embedded.md#embedded-limits): after the first value of the trigger, emits once when the
 * work is idle or when the grace has passed, whichever comes first. The bridge (createBridge.ts)
 * and the modern path of embedded mode (src/embed/modernPath.ts) both stop with it, through
 * `takeUntil`.
 */
import { race, switchMap, take, timer } from 'rxjs';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';

/** Settings of graceStop. */
export interface GraceStopSettings<T> {
  /** The longest wait after the trigger, in ms. */
  readonly graceMs: number;
  /** Virtual time in tests. Default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
  /**
   * What says the work is idle, for this trigger: its first value stops at once. `undefined`:
   * only the grace stops (the work then ends by itself, or the grace cuts it).
   */
  readonly idle?: ((trigger: T) => Observable<unknown> | undefined) | undefined;
}

/**
 * ```text
 * trigger: --t-------     grace 5
 * idle:    ------i---
 * output:  ------(s|)     s: the stop, at i or 5 after t, whichever comes first
 * ```
 */
export function graceStop<T>(settings: GraceStopSettings<T>): OperatorFunction<T, unknown> {
  const { graceMs, scheduler, idle } = settings;
  return (trigger$) =>
    trigger$.pipe(
      take(1),
      switchMap((trigger) => {
        const grace$ = timer(graceMs, scheduler);
        const idle$ = idle?.(trigger);
        return idle$ === undefined ? grace$ : race(grace$, idle$);
      }),
      take(1),
    );
}
