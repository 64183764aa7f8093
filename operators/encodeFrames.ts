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
 * `JSON.stringify` never writes a raw newline or carriage return: both are escaped inside strings
 * (stdio transport of both revisions).
 *
 * Rules (marbles/encodeFrames.marbles.test.ts):
 * 1. each frame is exactly one line, also with newlines and carriage returns in its strings
 * 2. order is kept
 *
 * @example
 * import { of } from 'rxjs';
 * import { encodeFrames } from 'mcp-bridge-sdk/operators';
 * import type { Frame } from 'mcp-bridge-sdk';
 * const frame: Frame = { jsonrpc: '2.0', id: 1, result: {} };
 * of(frame).pipe(encodeFrames()).subscribe((line) => console.log(JSON.stringify(line))); // "{...}\n"
 */
export function encodeFrames(): OperatorFunction<Frame, string> {
  return map((frame) => `${JSON.stringify(frame)}\n`);
}
