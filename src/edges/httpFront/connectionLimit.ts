/**
 * The cap on open connections of the front end (docs/serve.md#serve-limits): beyond it Node
 * closes a new connection at once (`server.maxConnections`, its `drop` event), so bodies that
 * never end and idle sockets cannot grow the process without bound. A flood of refusals writes
 * one line per interval, not one per connection (no log flood).
 */
import type { Server } from 'node:http';
import type { Logger } from '../../ports/logger.js';

/** At most one line about refused connections per this many ms. */
export const DROP_LOG_INTERVAL_MS = 60_000;

/** Counts refused connections; `drop()` gives the line to write now, or undefined. */
export function dropLog(
  maxConnections: number,
  intervalMs: number,
  now: () => number,
): { drop(): string | undefined } {
  let lastLine = Number.NEGATIVE_INFINITY;
  let since = 0;
  return {
    drop() {
      since += 1;
      if (now() - lastLine < intervalMs) return undefined;
      lastLine = now();
      const count = since;
      since = 0;
      return `${maxConnections} connections are open, the limit: ${count} new connection${count === 1 ? ' was' : 's were'} refused (at most one such line per ${Math.round(intervalMs / 1000)} s)`;
    },
  };
}

/** Caps the open connections of `server`; refusals are logged at most once per interval. */
export function limitConnections(
  server: Server,
  maxConnections: number,
  logger: Logger,
  refused?: (limit: string) => void,
): void {
  server.maxConnections = maxConnections;
  const log = dropLog(maxConnections, DROP_LOG_INTERVAL_MS, Date.now);
  server.on('drop', () => {
    refused?.('max_connections');
    const line = log.drop();
    if (line !== undefined) logger.log('serve', 'warn', line);
  });
}
