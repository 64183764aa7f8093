/**
 * Back-pressure across the bridge: while the client does not read its stdout, the bridge stops
 * reading its inputs (the client's stdin and the upstream's stdout), so that a flood of results
 * or notifications waits in the pipes of the other processes instead of the bridge's memory.
 * (zig-bridge-sdk gets the same from its blocking writes: docs/testing.md#testing-process.)
 *
 * The output is checked before each line goes to it: a line that arrives while the output still
 * waits for a 'drain' pauses every input; the 'drain' (or the end of the output) resumes them.
 * Frames already in the bridge still go out, so what waits in memory is bounded by the work in
 * flight, not by what the peers send.
 */
import type { Writable } from 'node:stream';

/** An input the bridge can stop reading for a while (a readable stream, or an edge over one). */
export interface Pausable {
  pause(): void;
  resume(): void;
}

/** Back-pressure between one output and its inputs. */
export interface FlowControl {
  /** Call before each line goes to the output. */
  check(): void;
  /**
   * Adds an input once it exists (the upstream's stdout after the start of the child, the body
   * gate of an HTTP connection); paused at once while the inputs are paused. Returns the remove:
   * after it, the input is no longer paused or resumed, nor held by the flow control. A removed
   * input is left as it is (not resumed: nobody may read it any more). A remove called again
   * does nothing, also after the input was added anew.
   */
  add(input: Pausable): () => void;
  /** True while the inputs are paused. */
  readonly paused: boolean;
}

/** Pauses the inputs while the output waits for a drain, and resumes them after it. */
export function createFlowControl(output: Writable, inputs: readonly Pausable[] = []): FlowControl {
  const all = new Set<Pausable>(inputs);
  let paused = false;
  const resume = (): void => {
    output.off('drain', resume);
    output.off('close', resume);
    output.off('error', resume);
    if (!paused) return;
    paused = false;
    for (const input of all) input.resume();
  };
  return {
    check() {
      if (paused || !output.writableNeedDrain) return;
      paused = true;
      for (const input of all) input.pause();
      output.on('drain', resume);
      output.on('close', resume);
      output.on('error', resume);
    },
    add(input) {
      all.add(input);
      if (paused) input.pause();
      let added = true;
      // Once only: a remove called again must not remove the input added anew since.
      return () => {
        if (added) all.delete(input);
        added = false;
      };
    },
    get paused() {
      return paused;
    },
  };
}
