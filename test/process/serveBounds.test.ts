/**
 * The bounds of memory per connection of `mcp-bridge serve` (docs/serve.md#serve-limits): a body
 * that never ends is cut after `--body-timeout`, connections beyond `--max-connections` are closed
 * at once while a session keeps working, and a session whose client does not read its output
 * ends alone after `--max-session-buffer-bytes`. Raw sockets play the hostile clients. Needs the
 * build.
 */
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import {
  POST_HEADERS,
  WAIT_MS,
  call,
  inSession,
  initialize,
  raw,
  rawSession,
  startServe,
} from './serveSupport.js';
import type { ServeProcess } from './serveSupport.js';

afterAll(killAllPeers);

/** A raw client socket: what it received, and whether it closed. */
function rawSocket(
  port: number,
  paused = false,
): { socket: Socket; data: () => string; closed: () => boolean } {
  const socket = connect({ host: '127.0.0.1', port });
  // A paused socket reads nothing: what the server writes stays in the kernel and the server.
  if (paused) socket.pause();
  let text = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => undefined);
  socket.on('close', () => {
    closed = true;
  });
  return { socket, data: () => text, closed: () => closed };
}

/** The head of a POST of `length` bytes in `session`. */
const postHead = (port: number, session: string, length: number): string =>
  [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Mcp-Session-Id: ${session}`,
    'MCP-Protocol-Version: 2025-11-25',
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');

const lineCount = (serve: ServeProcess, text: string): number =>
  serve.peer.stderr.filter((line) => line.includes(text)).length;

const ADD_2 = { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: '2' }] } };

describe('a body that never ends', () => {
  it('is answered 408 body_timeout after --body-timeout and its connection closes', async () => {
    const serve = await startServe(['--body-timeout', '500']);
    const session = await rawSession(serve.port);
    const slow = rawSocket(serve.port);
    slow.socket.write(postHead(serve.port, session, 1000) + '{"jsonrpc":');
    await waitFor(slow.closed, { what: 'the end of the slow body', timeoutMs: WAIT_MS });
    const [head, body] = slow.data().split('\r\n\r\n');
    expect(head?.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(head?.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body ?? '')).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32000,
        message: 'The request did not arrive within the time limit of the server.',
        data: { cause: 'body_timeout' },
      },
    });
  });

  it('does not cut a response that takes longer than --body-timeout', async () => {
    const serve = await startServe(['--body-timeout', '300']);
    const session = await rawSession(serve.port);
    // real timer: the call outlasts the body timeout, which counts only until the request arrived.
    const reply = await raw(serve.port, 'POST', inSession(session), call(3, 'slow', { ms: 1500 }));
    expect(reply.status).toBe(200);
    expect(reply.body).toContain('slept 1500 ms');
  });
});

describe('the cap on connections', () => {
  it('closes connections beyond --max-connections at once while a session keeps working', async () => {
    const serve = await startServe(['--max-connections', '3', '--body-timeout', '60000']);
    // The session's one connection (keep-alive), then two idle ones: the cap is reached.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (
      headers: Record<string, string>,
      body: string,
    ): Promise<{ status: number; text: string; session: string | undefined }> =>
      new Promise((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: serve.port,
            method: 'POST',
            path: '/mcp',
            agent,
            headers: { host: `127.0.0.1:${serve.port}`, ...headers },
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (text += chunk));
            res.on('end', () => {
              const id = res.headers['mcp-session-id'];
              resolve({
                status: res.statusCode ?? 0,
                text,
                session: typeof id === 'string' ? id : undefined,
              });
            });
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const init = await post(POST_HEADERS, initialize());
    const session = init.session ?? '';
    await post(inSession(session), JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    const idle = [rawSocket(serve.port), rawSocket(serve.port)];
    const refused = rawSocket(serve.port);
    await waitFor(refused.closed, { what: 'the connection beyond the cap closed', timeoutMs: WAIT_MS });
    expect(refused.data()).toBe('');
    expect(idle.map((s) => s.closed())).toEqual([false, false]);
    expect(lineCount(serve, '3 connections are open, the limit: 1 new connection was refused')).toBe(1);
    const answer = await post(inSession(session), call(9, 'add', { a: 1, b: 1 }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual(ADD_2);
    for (const s of idle) s.socket.destroy();
    agent.destroy();
  });
});

describe('a client that does not read', () => {
  it('loses its session after --max-session-buffer-bytes unread, and another session keeps working', async () => {
    const serve = await startServe(['--max-session-buffer-bytes', '262144', '--max-body-bytes', '20000000']);
    const deaf = await rawSession(serve.port);
    const other = await rawSession(serve.port);
    // A batch of two answers of 8 MB on one stream that the client never reads: the second finds
    // the first unread (more than the kernel's socket buffers take).
    const echo = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x'.repeat(8_000_000) } },
    });
    const batch = JSON.stringify([echo(11), echo(12)]);
    const deafSocket = rawSocket(serve.port, true);
    deafSocket.socket.write(postHead(serve.port, deaf, Buffer.byteLength(batch)) + batch);
    await waitFor(
      () =>
        lineCount(serve, 'bytes of its output unread, more than 262144: its streams close and it ends') === 1,
      {
        what: 'the line of the session that does not read',
        // 16 MB of JSON through serve and its upstream: on two busy cores that alone takes 20 s.
        timeoutMs: 3 * WAIT_MS,
      },
    );
    const answer = await raw(serve.port, 'POST', inSession(other), call(9, 'add', { a: 1, b: 1 }));
    expect(JSON.parse(answer.body)).toEqual(ADD_2);
    const gone = await raw(serve.port, 'POST', inSession(deaf), call(13, 'add', { a: 1, b: 1 }));
    expect(gone.status).toBe(404);
    expect(JSON.parse(gone.body).error.data.cause).toBe('session_not_found');
    deafSocket.socket.destroy();
  });
});
