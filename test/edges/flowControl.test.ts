/**
 * The inputs of a flow control (src/edges/flowControl.ts) can be removed: a removed input (a
 * child's stdout after its exit, the body gate of a closed HTTP connection) is no longer paused
 * or resumed, and no longer held.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createFlowControl } from '../../src/edges/flowControl.js';

const input = (name: string, calls: string[]) => ({
  pause: () => calls.push(`${name} pause`),
  resume: () => calls.push(`${name} resume`),
});

/** An output that waits for a drain at once; `drain()` reads it, which emits the 'drain'. */
function fullOutput(): { output: PassThrough; drain: () => Promise<void> } {
  const output = new PassThrough({ highWaterMark: 1 });
  output.write('x');
  return {
    output,
    drain: () =>
      new Promise((resolve) => {
        output.once('drain', () => setImmediate(resolve));
        output.read();
      }),
  };
}

describe('removing an input of a flow control', () => {
  it('a removed input is not paused or resumed any more; the others are', async () => {
    const calls: string[] = [];
    const { output, drain } = fullOutput();
    const flow = createFlowControl(output, [input('stdin', calls)]);
    const remove = flow.add(input('upstream', calls));
    remove();
    flow.check();
    await drain();
    expect(calls).toEqual(['stdin pause', 'stdin resume']);
  });

  it('an input removed while paused is left paused: the drain resumes only the others', async () => {
    const calls: string[] = [];
    const { output, drain } = fullOutput();
    const flow = createFlowControl(output, [input('stdin', calls)]);
    const remove = flow.add(input('upstream', calls));
    flow.check();
    remove();
    await drain();
    expect(calls).toEqual(['stdin pause', 'upstream pause', 'stdin resume']);
  });

  it('removing twice is harmless, also after the input was added again', async () => {
    const calls: string[] = [];
    const { output, drain } = fullOutput();
    const flow = createFlowControl(output);
    const upstream = input('upstream', calls);
    const first = flow.add(upstream);
    first();
    first();
    flow.add(upstream);
    first();
    flow.check();
    await drain();
    expect(calls).toEqual(['upstream pause', 'upstream resume']);
  });

  it('an input added after a removal is paused at once while the flow is paused', () => {
    const calls: string[] = [];
    const { output } = fullOutput();
    const flow = createFlowControl(output);
    flow.add(input('old child', calls))();
    flow.check();
    flow.add(input('new child', calls));
    expect(calls).toEqual(['new child pause']);
    expect(flow.paused).toBe(true);
  });
});
