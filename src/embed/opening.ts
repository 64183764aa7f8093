/**
 * Path selection of embedded mode (docs/embedded.md#embedded-selection): what one line does while no path
 * is selected yet. Pure: no rxjs, no I/O.
 */
import { isRequest } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';

/** The era a connection took: none yet (or never), the 2025-11-25 front end, or 2026-07-28. */
export type SelectedEra = 'none' | 'legacy' | 'modern';

/** What one line does while no path is selected. */
export type Opening =
  /** Selects nothing and gets no response: a blank line, or a line above the line limit. */
  | 'skip'
  /** A `server/discover` request: answered or refused, and the selection goes on. */
  | 'discover'
  /** A request whose method is exactly `initialize`: the 2025-11-25 front end (the bridge). */
  | 'legacy'
  /**
   * Anything else: other requests, notifications (even `notifications/initialized`), responses,
   * malformed JSON, invalid UTF-8, too deep nesting, and `initialize` only inside a string.
   */
  | 'modern';

/**
 * Classifies one line that arrives before a path is selected.
 *
 * Rules (docs/embedded.md#embedded-selection):
 * 1. a request with the method `initialize` selects the legacy path.
 * 2. a `server/discover` request selects no path.
 * 3. a blank line and a line above the line limit select no path.
 * 4. everything else selects the modern path, bad lines included.
 */
export function classifyOpening(inbound: Inbound): Opening {
  if (inbound.kind === 'blank') return 'skip';
  if (inbound.kind === 'bad') return inbound.cause === 'line_too_long' ? 'skip' : 'modern';
  const frame = inbound.frame;
  if (!isRequest(frame)) return 'modern';
  if (frame.method === 'initialize') return 'legacy';
  return frame.method === 'server/discover' ? 'discover' : 'modern';
}
