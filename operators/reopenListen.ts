import { asyncScheduler, defer } from 'rxjs';
import type { MonoTypeOperatorFunction, Observable, SchedulerLike } from 'rxjs';
import { LISTEN_ACKNOWLEDGED } from '../src/codec/listen.js';
import { checkBackoff, decideListenEnd } from '../src/codec/listenEnd.js';
import type { ListenEnd, ListenNext } from '../src/codec/listenEnd.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import type { ListenBackoffSettings } from './internal/listenBackoff.js';
import { reopenedStreams } from './internal/listenStreams.js';

export type { ListenEnd, ListenNext } from '../src/codec/listenEnd.js';

/** Settings of reopenListen. */
export interface ReopenListenConfig {
  /** First wait after a lost stream, in ms. Default 500 (docs/notifications.md#notifications-reconnect). */
  readonly initialMs: number;
  /** Multiplier of the wait per consecutive loss. Default 2. */
  readonly factor: number;
  /** Upper bound of one wait, in ms. Default 30 000. */
  readonly maxMs: number;
  /** A stream that lived this long after its acknowledgment resets the wait, in ms. Default 10 000. */
  readonly resetAfterMs: number;
  /**
   * When true, the first stream must reach its acknowledgment: an end before it is not reopened
   * (a stream error fails the output, a response passes and the output completes) and nothing is
   * logged. For a stream that replaces another one (docs/notifications.md#notifications-subscribe). Default false.
   */
  readonly failBeforeFirstAck: boolean;
  /**
   * True for the event that acknowledges a stream: it starts the uptime that resets the backoff.
   * Default: the notification `notifications/subscriptions/acknowledged` (docs/notifications.md#notifications-ending).
   */
  readonly isAcknowledgment?: ((event: ExchangeEvent) => boolean) | undefined;
  /**
   * What follows the end of a stream: `reopen` after the backoff, `signIn` (wait for `signIn$`) or
   * `stop`; `why` starts the log line. `end.failed` is whatever the source errored with, so a
   * product with its own error type classifies it here. `canSignIn` is true when `signIn$` is set.
   * Default: the bridge's rules for BridgeError (src/codec/listenEnd.ts, docs/notifications.md#notifications-reconnect
   * , docs/http-upstream.md#http-listen-stream), under which any other error reopens.
   */
  readonly classifyEnd?: ((end: ListenEnd, canSignIn: boolean) => ListenNext) | undefined;
  /** Emits when a sign-in completed: HTTP 401/403 wait for it. Without it they stop (docs/http-upstream.md#http-listen-stream). */
  readonly signIn$?: Observable<unknown> | undefined;
  /** The info and warning lines of docs/notifications.md#notifications-reconnect and docs/http-upstream.md#http-listen-stream. Default: none. */
  readonly log?: ((level: 'info' | 'warn', text: string) => void) | undefined;
  /** Clock and timers. Default asyncScheduler. */
  readonly scheduler?: SchedulerLike | undefined;
}

/** The defaults of reopenListen (docs/notifications.md#notifications-reconnect). */
export const DEFAULT_REOPEN_LISTEN_CONFIG = Object.freeze({
  initialMs: 500,
  factor: 2,
  maxMs: 30_000,
  resetAfterMs: 10_000,
  failBeforeFirstAck: false,
});

const isListenAcknowledgment = (event: ExchangeEvent): boolean =>
  event.type === 'notification' && event.frame.method === LISTEN_ACKNOWLEDGED;

/**
 * Keeps a `subscriptions/listen` stream open: re-subscribes to the source (one subscription is
 * one listen request) with capped exponential backoff, and stops where a new one cannot help.
 *
 * ```text
 * source:  -k--#                      k = acknowledgment, # = stream error
 * output:  -k 503ms k 1003ms k ...    waits 0.5 s, 1 s, 2 s ... 30 s
 * ```
 *
 * A listen result, an upstream `notifications/cancelled` and an end without a response are one
 * event (docs/notifications.md#notifications-ending); a response passes as the last value of its stream. Upstream
 * loss is `upstream_exited`, or `closed` without an HTTP status; the end of input unsubscribes,
 * which cancels a backoff wait.
 *
 * A callback of the config that throws (`isAcknowledgment`, `classifyEnd`, `log`) errors the
 * output with what it threw, as a throwing callback of `tap` or of the `delay` of `repeat` does
 * (rule 14): it is a bug of the caller, not a lost stream, so it is never classified or reopened.
 *
 * Rules (marbles/listenReconnect.marbles.test.ts):
 * 1. reopens after 0.5s, 1s, 2s while streams die young
 * 2. a stream that lived 10 s after its ack resets the backoff to 0.5 s
 * 3. a stream that lived less than 10 s after its ack keeps doubling the backoff
 * 4. caps the backoff at 30 s
 * 5. a JSON-RPC error reply stops reopening
 * 6. upstream loss stops reopening
 * 7. an upstream notifications/cancelled ends the stream once, like a listen result
 * 8. the end of input during a backoff wait opens no stream
 * 9. HTTP 408, 429, 5xx except 501 and a broken 2xx stream reopen; other statuses stop
 * 10. HTTP 401 and 403 wait for the next sign-in, or stop without one
 * 11. with failBeforeFirstAck, an end before the first ack is not reopened
 * 12. an error type of another product is classified by the classifyEnd of the config
 * 13. the isAcknowledgment of the config tells which event starts the uptime
 * 14. a throw of isAcknowledgment, classifyEnd or log errors the output and opens no stream after it
 *
 * @example
 * import { defer, type Observable } from 'rxjs';
 * import { reopenListen, type ExchangeEvent } from 'mcp-bridge-sdk/operators';
 * class GoneError extends Error {}
 * declare const openListen: () => Observable<ExchangeEvent>; // one listen request per subscription
 * const events$ = defer(openListen).pipe(
 *   reopenListen({
 *     classifyEnd: (end) =>
 *       end.failed instanceof GoneError ? { kind: 'stop' } : { kind: 'reopen', why: 'lost' },
 *     log: (level, text) => console.warn(level, text),
 *   }),
 * );
 * @see docs/notifications.md#notifications-reconnect and docs/http-upstream.md#http-listen-stream; docs/notifications.md#notifications-ending
 */
export function reopenListen(
  config: Partial<ReopenListenConfig> = {},
): MonoTypeOperatorFunction<ExchangeEvent> {
  const settings = { ...DEFAULT_REOPEN_LISTEN_CONFIG, ...config };
  checkBackoff(settings);
  const { failBeforeFirstAck } = settings;
  const isAck = config.isAcknowledgment ?? isListenAcknowledgment;
  const backoffSettings: ListenBackoffSettings = {
    ...settings,
    classifyEnd: config.classifyEnd ?? decideListenEnd,
    signIn$: config.signIn$,
    log: config.log ?? (() => undefined),
    scheduler: config.scheduler ?? asyncScheduler,
  };
  // Per subscription, never shared: the backoff and how the streams went (internal/listenStreams.ts).
  return (source) => defer(() => reopenedStreams(source, backoffSettings, isAck, failBeforeFirstAck));
}
