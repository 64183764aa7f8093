/**
 * Cancellation of an HTTP exchange before its response (docs/http-upstream.md#http-cancellation): unsubscribing
 * closes the POST even when no status line has come yet, with or without a sign-in, and a request
 * cancelled while its sign-in challenge runs aborts the challenge's signal; the challenge gets the
 * request's trace context (docs/observability.md#observability-sign-in).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { waitFor } from '../../helpers/waitFor.js';
import { NEVER } from 'rxjs';
import { createHttpUpstream } from '../../../src/edges/http/httpUpstream.js';
import type { HttpUpstreamConnection } from '../../../src/edges/http/httpUpstream.js';
import type { UpstreamAuth } from '../../../src/ports/signIn.js';
import { listenLoopback } from '../../fixtures/loopbackServer.js';
import type { LoopbackServer } from '../../fixtures/loopbackServer.js';
import { guardLoopback, recordingLogger } from './support.js';

const META = { 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } };

let guard: ReturnType<typeof guardLoopback>;
const cleanups: Array<() => void> = [];

beforeAll(() => {
  guard = guardLoopback();
});
afterAll(() => {
  expect(guard.stop()).toEqual([]);
});
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server that reads each POST and then does `answer` (which may never answer). */
async function serve(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<{ url: string; posts: IncomingMessage[]; closed: Promise<void>[] }> {
  const posts: IncomingMessage[] = [];
  const closed: Promise<void>[] = [];
  const loopback: LoopbackServer = await listenLoopback((request, response) => {
    posts.push(request);
    closed.push(new Promise((resolve) => response.once('close', () => resolve())));
    request.resume();
    request.once('end', () => answer(request, response));
  }, undefined);
  cleanups.push(() => {
    for (const socket of loopback.sockets) socket.destroy();
    loopback.server.close();
  });
  return { url: `http://127.0.0.1:${loopback.port}/mcp`, posts, closed };
}

function connect(url: string, auth?: UpstreamAuth): HttpUpstreamConnection {
  const connection = createHttpUpstream(
    auth === undefined ? { url, env: {} } : { url, env: {}, auth },
    recordingLogger(),
  );
  cleanups.push(() => connection.close());
  return connection;
}

it.each([
  ['without a sign-in', undefined],
  ['with a sign-in', { header: () => 'Bearer t0', challenge: () => Promise.resolve(), signedIn$: NEVER }],
])('unsubscribing before the status line closes the POST (%s)', async (_name, auth) => {
  const server = await serve(() => undefined);
  const connection = connect(server.url, auth);
  const subscription = connection
    .request('tools/list', { _meta: META })
    .subscribe({ error: () => undefined });
  await waitFor(() => server.closed.length === 1);
  let closed = false;
  void server.closed[0]!.then(() => (closed = true));
  // Sentinel: a second POST of the same connection, sent after the first, reaches the server.
  const sentinel = connection.request('tools/list', { _meta: META }).subscribe({ error: () => undefined });
  await waitFor(() => server.closed.length === 2);
  expect(closed).toBe(false);
  subscription.unsubscribe();
  await server.closed[0];
  sentinel.unsubscribe();
  await server.closed[1];
  expect(server.posts).toHaveLength(2);
});

it('a request cancelled during its sign-in challenge aborts the signal the challenge got', async () => {
  const server = await serve((_request, response) => {
    response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
  });
  const signals: AbortSignal[] = [];
  const auth: UpstreamAuth = {
    header: () => undefined,
    challenge: ({ signal }) => {
      signals.push(signal);
      return new Promise<void>(() => undefined);
    },
    signedIn$: NEVER,
  };
  const connection = connect(server.url, auth);
  const subscription = connection
    .request('tools/list', { _meta: META })
    .subscribe({ error: () => undefined });
  await waitFor(() => signals.length === 1);
  expect(signals[0]!.aborted).toBe(false);
  subscription.unsubscribe();
  expect(signals[0]!.aborted).toBe(true);
  expect(server.posts).toHaveLength(1);
});

it('hands the challenge the trace context of the refused request, only a well-formed one', async () => {
  const server = await serve((_request, response) => {
    response.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
  });
  const traces: unknown[] = [];
  const auth: UpstreamAuth = {
    header: () => undefined,
    challenge: ({ trace }) => {
      traces.push(trace);
      return Promise.reject(new Error('no sign-in here'));
    },
    signedIn$: NEVER,
  };
  const connection = connect(server.url, auth);
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  for (const meta of [
    { ...META, traceparent, tracestate: 'a=1' },
    { ...META, traceparent: 'not-a-traceparent' },
  ]) {
    connection.request('tools/list', { _meta: meta }).subscribe({ error: () => undefined });
  }
  await waitFor(() => traces.length === 2);
  // The two POSTs run at once: their 401s may come in either order.
  expect(traces).toHaveLength(2);
  expect(traces).toContainEqual({ traceparent, tracestate: 'a=1' });
  expect(traces).toContain(undefined);
});
