/**
 * HTTP response bodies pause under client back-pressure (src/edges/bodyGate.ts): a body that
 * sse.ts reads stops being read while the gate of its connection is paused, as the stdout of a
 * stdio upstream does; a body that starts while the gate is paused starts paused. The gate
 * belongs to one connection: two bridges in one process never pause each other's bodies.
 */
import { createServer } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import type { Observable } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import { createBodyGate } from '../../src/edges/bodyGate.js';
import { createFlowControl } from '../../src/edges/flowControl.js';
import type { FlowControl } from '../../src/edges/flowControl.js';
import { createHttpUpstream } from '../../src/edges/http/httpUpstream.js';
import { sseData } from '../../src/edges/http/sse.js';
import { recordingLogger } from './http/support.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the gate of the response bodies', () => {
  it('an SSE body is not read while the gate is paused, and every event comes after the resume', async () => {
    const gate = createBodyGate();
    const body = new PassThrough();
    const events: string[] = [];
    const subscription = sseData(body, 1024, gate).subscribe((data) => events.push(data));
    body.write('data: one\n\n');
    await turn();
    expect(events).toEqual(['one']);
    gate.pause();
    body.write('data: two\n\ndata: three\n\n');
    await turn();
    expect(events).toEqual(['one']);
    expect(body.isPaused()).toBe(true);
    gate.resume();
    await turn();
    expect(events).toEqual(['one', 'two', 'three']);
    subscription.unsubscribe();
  });

  it('a body that starts while the gate is paused starts paused, and comes after the resume', async () => {
    const gate = createBodyGate();
    gate.pause();
    const body = new PassThrough();
    const events: string[] = [];
    const subscription = sseData(body, 1024, gate).subscribe((data) => events.push(data));
    body.write('data: early\n\n');
    await turn();
    expect(events).toEqual([]);
    gate.resume();
    await turn();
    expect(events).toEqual(['early']);
    subscription.unsubscribe();
  });

  it('a paused gate pauses only its own bodies: the body of another gate is read on', async () => {
    const paused = createBodyGate();
    const open = createBodyGate();
    const pausedBody = new PassThrough();
    const openBody = new PassThrough();
    const pausedEvents: string[] = [];
    const openEvents: string[] = [];
    const a = sseData(pausedBody, 1024, paused).subscribe((data) => pausedEvents.push(data));
    const b = sseData(openBody, 1024, open).subscribe((data) => openEvents.push(data));
    paused.pause();
    pausedBody.write('data: a\n\n');
    openBody.write('data: b\n\n');
    await turn();
    expect(openEvents).toEqual(['b']);
    expect(openBody.isPaused()).toBe(false);
    expect(pausedBody.isPaused()).toBe(true);
    expect(pausedEvents).toEqual([]);
    a.unsubscribe();
    b.unsubscribe();
  });
});

/** An upstream whose every POST gets an SSE stream: one progress event now, the response on `finish`. */
async function startHeldSseUpstream(): Promise<{
  url: string;
  opened: (count: number) => Promise<void>;
  finish: () => void;
}> {
  const open: Array<{ res: ServerResponse; id: unknown }> = [];
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const progress = {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: id, progress: 1 },
      };
      res.write(`data: ${JSON.stringify(progress)}\n\n`);
      open.push({ res, id });
      if (waiter !== undefined && open.length >= waiter.count) waiter.resolve();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  cleanups.push(() => server.closeAllConnections());
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    opened: (count) =>
      open.length >= count ? Promise.resolve() : new Promise((resolve) => (waiter = { count, resolve })),
    finish: () => {
      for (const { res, id } of open.splice(0))
        res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n\n`);
    },
  };
}

/** A client output that is full at once (its flow control pauses at the first check) until it is read. */
const fullOutput = (): PassThrough => {
  const output = new PassThrough({ highWaterMark: 1 });
  output.write('x');
  return output;
};

/** The events of one request, and a promise of its end. */
function track(events$: Observable<ExchangeEvent>): { types: string[]; done: Promise<void> } {
  const types: string[] = [];
  const done = new Promise<void>((resolve, reject) => {
    const subscription = events$.subscribe({
      next: (event) => types.push(event.type),
      error: reject,
      complete: resolve,
    });
    cleanups.push(() => subscription.unsubscribe());
  });
  return { types, done };
}

describe('the body gate of an HTTP connection', () => {
  it('is its own: the connection whose client does not read stops reading, the other one reads on', async () => {
    const upstream = await startHeldSseUpstream();
    const logger = recordingLogger();
    const stalledOutput = fullOutput();
    const stalledFlow = createFlowControl(stalledOutput);
    const readingFlow = createFlowControl(new PassThrough());
    const stalled = createHttpUpstream({ url: upstream.url, env: {}, flow: stalledFlow }, logger);
    const reading = createHttpUpstream({ url: upstream.url, env: {}, flow: readingFlow }, logger);
    cleanups.push(
      () => stalled.close(),
      () => reading.close(),
    );
    const meta = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } };
    const stalledCall = track(stalled.request('ping', meta));
    const readingCall = track(reading.request('ping', meta));
    await upstream.opened(2);
    // The client of `stalled` does not read: its flow control pauses the gate of its bodies only.
    stalledFlow.check();
    expect(stalledFlow.paused).toBe(true);
    expect(readingFlow.paused).toBe(false);
    upstream.finish();
    await readingCall.done;
    expect(readingCall.types).toEqual(['notification', 'response']);
    expect(stalledCall.types).not.toContain('response');
    // Its client reads again: the drain resumes the gate, and the rest of the body comes.
    stalledOutput.read();
    await stalledCall.done;
    expect(stalledCall.types).toEqual(['notification', 'response']);
  });

  it('adds its gate to the flow control of its client and removes it at close', () => {
    const added: unknown[] = [];
    const removed: unknown[] = [];
    const flow = createFlowControl(new PassThrough());
    const recordingFlow: FlowControl = {
      check: () => flow.check(),
      paused: false,
      add: (input) => {
        added.push(input);
        const remove = flow.add(input);
        return () => {
          removed.push(input);
          remove();
        };
      },
    };
    const connection = createHttpUpstream(
      { url: 'http://127.0.0.1:9/mcp', env: {}, flow: recordingFlow },
      recordingLogger(),
    );
    expect(added).toHaveLength(1);
    expect(removed).toEqual([]);
    connection.close();
    connection.close();
    expect(removed).toEqual(added);
  });
});
