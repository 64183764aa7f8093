import { map } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { Frame } from '../src/protocol/jsonrpc.js';

/**
 * Turns frames into newline-terminated lines, one frame per line.
 *
 * ```text
 * frames: -a-b-|
 * lines:  -A-B-|   (A = JSON.stringify(a) + '\n')
 * ```
 *
 * Rules:
 * 1. Each frame is exactly one line: `JSON.stringify` never writes a raw newline or carriage
 *    return, because both are escaped inside strings (stdio transport of both revisions).
 * 2. Order is kept.
 */
export function encodeFrames(): OperatorFunction<Frame, string> {
  return map((frame) => `${JSON.stringify(frame)}\n`);
}
