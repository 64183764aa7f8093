/**
 * What cancels one HTTP exchange: aborting its POST is the cancellation on HTTP
 * (docs/http-upstream.md#http-cancellation), made cheap enough to exist for every call.
 */
import { EventEmitter } from 'node:events';

/**
 * What cancels one exchange. Its POSTs get a bare emitter as their signal (undici takes an
 * EventEmitter or an AbortSignal; `aborted` makes a POST started after the abort fail at once).
 * The AbortSignal exists only when a sign-in challenge asks for it: an AbortSignal is an
 * EventTarget, and making one per call showed in the profile of the cheap path.
 */
export interface Canceller {
  readonly signal: EventEmitter & { aborted: boolean };
  /** Made on first use; aborted with the exchange. */
  readonly abortSignal: AbortSignal;
  abort(): void;
}

export function canceller(): Canceller {
  const signal = Object.assign(new EventEmitter(), { aborted: false });
  let controller: AbortController | undefined;
  return {
    signal,
    get abortSignal() {
      controller ??= new AbortController();
      if (signal.aborted) controller.abort();
      return controller.signal;
    },
    abort() {
      if (signal.aborted) return;
      signal.aborted = true;
      signal.emit('abort');
      controller?.abort();
    },
  };
}
