/**
 * The idle clock of a front session (docs/serve.md#serve-sessions): the idle time counts from the
 * moment the session had nothing in flight and no stream open; any activity starts it again. Its
 * timer and `lastActive` run on the session's scheduler, so the table's tests drive it virtually.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

export interface IdleClockSettings {
  readonly scheduler: SchedulerLike;
  readonly idleMs: number;
  /** True while the session must not expire: ended, a request in flight, or a stream open. */
  readonly busy: () => boolean;
  readonly onIdle: () => void;
}

export interface IdleClock {
  /** Time of the last activity, on the scheduler's clock. */
  readonly lastActive: number;
  /** Notes an activity (when `activity`) and arms the timer when the session is not busy. */
  check(activity: boolean): void;
  stop(): void;
}

export function createIdleClock(settings: IdleClockSettings): IdleClock {
  const { scheduler } = settings;
  let lastActive = scheduler.now();
  let timer: Subscription | undefined;
  return {
    get lastActive() {
      return lastActive;
    },
    check(activity) {
      if (activity) {
        lastActive = scheduler.now();
        timer?.unsubscribe();
        timer = undefined;
      }
      if (timer !== undefined || settings.busy()) return;
      timer = scheduler.schedule(settings.onIdle, settings.idleMs);
    },
    stop() {
      timer?.unsubscribe();
    },
  };
}
