/**
 * The limits of the listen stream's reopening from `--listen-backoff` and `--listen-max-backoff`
 * (docs/notifications.md#notifications-reconnect, docs/cli.md#cli-options), for serveStdio and
 * serveHttp: only what was given, so that the defaults keep their one home (DEFAULT_LIMITS).
 */
import { DEFAULT_LIMITS } from '../bridge/config.js';
import type { BridgeLimits } from '../bridge/config.js';
import type { ServeOptions } from './serveOptions.js';

type ListenLimits = Partial<Pick<BridgeLimits, 'listenBackoffMs' | 'listenMaxBackoffMs'>>;

/**
 * The listen limits of the options. When only one is given, the other default moves so that the
 * longest wait is never below the first (the rule of `--listen-max-backoff`): a first wait above
 * 30 s raises the longest wait to it, a longest wait below 500 ms lowers the first wait to it.
 */
export function listenLimits(
  options: Pick<ServeOptions, 'listenBackoffMs' | 'listenMaxBackoffMs'>,
): ListenLimits {
  const { listenBackoffMs: given, listenMaxBackoffMs: givenLongest } = options;
  if (given === undefined && givenLongest === undefined) return {};
  const first = given ?? Math.min(DEFAULT_LIMITS.listenBackoffMs, givenLongest ?? Infinity);
  return {
    listenBackoffMs: first,
    listenMaxBackoffMs: givenLongest ?? Math.max(DEFAULT_LIMITS.listenMaxBackoffMs, first),
  };
}
