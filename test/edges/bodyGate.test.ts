/**
 * HTTP listen streams pause under client back-pressure (issue 10 item 4): a response body that
 * sse.ts reads stops being read while the gate of the response bodies is paused, as the stdout of
 * a stdio upstream does; a body that starts while the gate is paused starts paused.
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { responseBodies } from '../../src/edges/bodyGate.js';
import { sseData } from '../../src/edges/http/sse.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => responseBodies.resume());

describe('the gate of the response bodies', () => {
  it('an SSE body is not read while the gate is paused, and every event comes after the resume', async () => {
    const body = new PassThrough();
    const events: string[] = [];
    const subscription = sseData(body, 1024).subscribe((data) => events.push(data));
    body.write('data: one\n\n');
    await turn();
    expect(events).toEqual(['one']);
    responseBodies.pause();
    body.write('data: two\n\ndata: three\n\n');
    await turn();
    expect(events).toEqual(['one']);
    expect(body.isPaused()).toBe(true);
    responseBodies.resume();
    await turn();
    expect(events).toEqual(['one', 'two', 'three']);
    subscription.unsubscribe();
  });

  it('a body that starts while the gate is paused starts paused, and comes after the resume', async () => {
    responseBodies.pause();
    const body = new PassThrough();
    const events: string[] = [];
    const subscription = sseData(body, 1024).subscribe((data) => events.push(data));
    body.write('data: early\n\n');
    await turn();
    expect(events).toEqual([]);
    responseBodies.resume();
    await turn();
    expect(events).toEqual(['early']);
    subscription.unsubscribe();
  });
});
