import { map } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { Frame } from '../src/protocol/jsonrpc.js';
import { rawResultLine } from '../src/protocol/rawResult.js';

/** Settings of encodeFrames. */
export interface EncodeFramesConfig {
  /**
   * Emit the line of a large upstream result as pieces (`(string | Uint8Array)[]`, written in
   * order by `writeLines`) with the upstream's own bytes for the members that shaping left
   * unchanged, instead of one string. The line parses to the value of
   * `JSON.stringify` of the frame (src/protocol/rawResult.ts). Default false: strings only.
   */
  readonly rawResults: boolean;
}

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
 * 3. with rawResults, the result of a line of 1 MiB or more is pieces with its raw members
 *
 * @example
 * import { of } from 'rxjs';
 * import { encodeFrames } from 'mcp-bridge-sdk/operators';
 * import type { Frame } from 'mcp-bridge-sdk';
 * const frame: Frame = { jsonrpc: '2.0', id: 1, result: {} };
 * const lines: string[] = [];
 * of(frame).pipe(encodeFrames()).subscribe((line) => lines.push(line));
 * // lines: ['{"jsonrpc":"2.0","id":1,"result":{}}\n']
 */
export function encodeFrames(): OperatorFunction<Frame, string>;
/** With `rawResults`, the line of a large upstream result may be pieces (rule 3). */
export function encodeFrames(
  config: EncodeFramesConfig,
): OperatorFunction<Frame, string | readonly (string | Uint8Array)[]>;
export function encodeFrames(
  config?: EncodeFramesConfig,
): OperatorFunction<Frame, string | readonly (string | Uint8Array)[]> {
  if (config?.rawResults === true)
    return map((frame) => rawResultLine(frame) ?? `${JSON.stringify(frame)}\n`);
  return map((frame) => `${JSON.stringify(frame)}\n`);
}
