/**
 * The limits and bad input of `mcp-bridge serve` (docs/serve.md#serve-errors,
 * docs/serve.md#serve-limits, docs/serve.md#serve-security): each with its exact HTTP status and
 * JSON-RPC error, over raw HTTP requests to the built executable (the security checks are
 * serveSecurity.test.ts). Needs the build.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import {
  INITIALIZE,
  POST_HEADERS,
  TOO_MANY,
  WAIT_MS,
  call,
  inSession,
  raw,
  rawSession,
  refusal,
  startServe,
} from './serveSupport.js';
import type { RawReply, ServeProcess } from './serveSupport.js';

afterAll(killAllPeers);

const fixtureCount = (serve: ServeProcess, text: string): number =>
  serve.peer.stderr.filter((line) => line.startsWith('bridge-fixture-server: ') && line.endsWith(text))
    .length;

/** A slow call held open on its own stream; `stop` drops the stream. */
async function holdSlowCall(serve: ServeProcess, session: string, id: number): Promise<() => void> {
  const before = fixtureCount(serve, 'slow: started');
  const abort = new AbortController();
  void fetch(serve.url, {
    method: 'POST',
    headers: inSession(session),
    body: call(id, 'slow', { ms: 60_000 }),
    signal: abort.signal,
  }).catch(() => undefined);
  await waitFor(() => fixtureCount(serve, 'slow: started') > before, {
    what: 'the slow call',
    timeoutMs: WAIT_MS,
  });
  return () => abort.abort();
}

/** An `add` call posted again while the in-flight limit refuses it: its first answer that is not a refusal. */
async function addWhenFree(serve: ServeProcess, session: string, id: number): Promise<unknown> {
  const deadline = Date.now() + WAIT_MS;
  while (Date.now() < deadline) {
    const next = await raw(serve.port, 'POST', inSession(session), call(id, 'add', { a: 1, b: 1 }));
    const body = JSON.parse(next.body) as { error?: { data?: { cause?: string } } };
    if (body.error?.data?.cause !== 'too_many_requests') return body;
  }
  throw new Error(`call ${id}: refused for ${WAIT_MS} ms`);
}

describe('bad input', () => {
  let serve: ServeProcess;
  let session: string;
  beforeAll(async () => {
    serve = await startServe(['--max-body-bytes', '2000', '--max-session-requests', '1']);
    session = await rawSession(serve.port);
  });

  it('refuses a POST whose Accept lacks text/event-stream with 406', async () => {
    const reply = await raw(
      serve.port,
      'POST',
      { 'content-type': 'application/json', accept: 'application/json' },
      INITIALIZE,
    );
    expect(reply.status).toBe(406);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(
        -32000,
        'The Accept header must allow application/json and text/event-stream.',
        'not_acceptable',
      ),
    );
  });

  it('refuses a body that is not application/json with 415', async () => {
    const reply = await raw(
      serve.port,
      'POST',
      { ...POST_HEADERS, 'content-type': 'text/plain' },
      INITIALIZE,
    );
    expect(reply.status).toBe(415);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32000, 'The body must be application/json.', 'unsupported_media_type'),
    );
  });

  it('refuses a GET that does not accept an event stream with 406', async () => {
    const reply = await raw(serve.port, 'GET', { accept: 'application/json', 'mcp-session-id': session });
    expect(reply.status).toBe(406);
    expect(JSON.parse(reply.body).error.data.cause).toBe('not_acceptable');
  });

  it('answers an unknown session with 404 and -32001', async () => {
    const reply = await raw(serve.port, 'POST', inSession('A'.repeat(32)), call(1, 'add', { a: 1, b: 1 }));
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32001, 'The session is not known: it ended or never existed.', 'session_not_found'),
    );
  });

  it('answers a request without a session id after initialize with 400', async () => {
    const reply = await raw(serve.port, 'POST', POST_HEADERS, call(1, 'add', { a: 1, b: 1 }));
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32000, 'The Mcp-Session-Id header is required after initialize.', 'session_required'),
    );
  });

  it('answers a body that is not JSON with 400 and -32700', async () => {
    const reply = await raw(serve.port, 'POST', inSession(session), '{"jsonrpc": "2.0", "id": 3,');
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32700, message: 'The request is not valid JSON.', data: { cause: 'parse_error' } },
    });
  });

  it('answers a body above --max-body-bytes with 413', async () => {
    const reply = await raw(
      serve.port,
      'POST',
      inSession(session),
      call(4, 'echo', { text: 'x'.repeat(3000) }),
    );
    expect(reply.status).toBe(413);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32600, 'The body is larger than the limit of the server.', 'body_too_large'),
    );
  });

  it('answers an unsupported MCP-Protocol-Version with 400', async () => {
    const reply = await raw(
      serve.port,
      'POST',
      { ...inSession(session), 'mcp-protocol-version': '1999-01-01' },
      call(5, 'add', { a: 1, b: 1 }),
    );
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(
        -32000,
        'The MCP-Protocol-Version header names an unsupported revision.',
        'bad_protocol_version',
      ),
    );
  });

  it('takes a request without MCP-Protocol-Version as of the revision of its session', async () => {
    const { 'mcp-protocol-version': _, ...headers } = inSession(session);
    const reply = await raw(serve.port, 'POST', headers, call(6, 'add', { a: 2, b: 2 }));
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      jsonrpc: '2.0',
      id: 6,
      result: { content: [{ type: 'text', text: '4' }] },
    });
  });

  it('answers another method with 405 and another path with 404', async () => {
    const put = await raw(serve.port, 'PUT', inSession(session), '{}');
    expect(put.status).toBe(405);
    expect(put.headers['allow']).toBe('GET, POST, DELETE');
    const other = await raw(serve.port, 'POST', POST_HEADERS, INITIALIZE, '/other');
    expect(other.status).toBe(404);
    expect(JSON.parse(other.body).error.data.cause).toBe('not_found');
  });

  it('answers a request above the in-flight limit of its session with too_many_requests', async () => {
    const stop = await holdSlowCall(serve, session, 10);
    const reply = await raw(serve.port, 'POST', inSession(session), call(11, 'add', { a: 1, b: 1 }));
    stop();
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(TOO_MANY(11));
  });
  it('cancels a request whose stream is dropped during its input round: its place in flight is free again', async () => {
    const asking = await rawSession(serve.port, { elicitation: { form: {} } });
    const abort = new AbortController();
    const response = await fetch(serve.url, {
      method: 'POST',
      headers: inSession(asking),
      body: call(30, 'ask_form', {}),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('elicitation/create')) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error('the stream ended before the input request');
      text += Buffer.from(chunk.value).toString('utf8');
    }
    abort.abort();
    // With the round still waiting, the one place of --max-session-requests 1 would stay taken.
    let reply: RawReply | undefined;
    const deadline = Date.now() + WAIT_MS;
    while (reply === undefined && Date.now() < deadline) {
      const next = await raw(serve.port, 'POST', inSession(asking), call(31, 'add', { a: 1, b: 1 }));
      if (JSON.parse(next.body).error?.data?.cause !== 'too_many_requests') reply = next;
    }
    expect(JSON.parse(reply?.body ?? '{}')).toEqual({
      jsonrpc: '2.0',
      id: 31,
      result: { content: [{ type: 'text', text: '2' }] },
    });
  });
});

describe('limits of all sessions', () => {
  let serve: ServeProcess;
  const sessions: string[] = [];
  beforeAll(async () => {
    serve = await startServe(['--max-sessions', '2', '--max-requests', '1']);
    sessions.push(await rawSession(serve.port), await rawSession(serve.port));
  });

  it('answers a request above --max-requests of all sessions with too_many_requests', async () => {
    const stop = await holdSlowCall(serve, sessions[0]!, 20);
    const reply = await raw(serve.port, 'POST', inSession(sessions[1]!), call(21, 'add', { a: 1, b: 1 }));
    stop();
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual(TOO_MANY(21));
  });

  it('answers ping at the --max-requests limit with {}', async () => {
    const stop = await holdSlowCall(serve, sessions[0]!, 22);
    const reply = await raw(
      serve.port,
      'POST',
      inSession(sessions[1]!),
      JSON.stringify({ jsonrpc: '2.0', id: 23, method: 'ping' }),
    );
    stop();
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({ jsonrpc: '2.0', id: 23, result: {} });
  });

  it('answers a request whose id is in flight in its session with duplicate_request_id, and takes no place', async () => {
    // The place of the slow call of the test before is free once its dropped stream was seen.
    await addWhenFree(serve, sessions[1]!, 26);
    const stop = await holdSlowCall(serve, sessions[0]!, 24);
    const reply = await raw(serve.port, 'POST', inSession(sessions[0]!), call(24, 'add', { a: 1, b: 1 }));
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual({
      jsonrpc: '2.0',
      id: 24,
      error: {
        code: -32600,
        message:
          'A request with this id is still in flight on this connection. Send the request with another id.',
        data: { cause: 'duplicate_request_id' },
      },
    });
    stop();
    // The one place comes back once the dropped slow call is cancelled; the duplicate held none.
    expect(await addWhenFree(serve, sessions[1]!, 25)).toEqual({
      jsonrpc: '2.0',
      id: 25,
      result: { content: [{ type: 'text', text: '2' }] },
    });
  });

  it('answers an initialize above --max-sessions with 503 while every session has a stream open', async () => {
    const listening = sessions.map(() => new AbortController());
    await Promise.all(
      sessions.map(async (session, i) => {
        const response = await fetch(serve.url, {
          headers: { accept: 'text/event-stream', 'mcp-session-id': session },
          signal: listening[i]!.signal,
        });
        expect(response.status).toBe(200);
      }),
    );
    const reply = await raw(serve.port, 'POST', POST_HEADERS, INITIALIZE);
    for (const abort of listening) abort.abort();
    expect(reply.status).toBe(503);
    expect(JSON.parse(reply.body)).toEqual(
      refusal(-32000, 'The server has as many sessions as its limit.', 'too_many_sessions', 1),
    );
  });
});

describe('without a session', () => {
  it('answers server/discover with -32601 and its id, status 200, as over stdio', async () => {
    const serve = await startServe();
    const reply = await raw(
      serve.port,
      'POST',
      POST_HEADERS,
      JSON.stringify({ jsonrpc: '2.0', id: 'probe-1', method: 'server/discover', params: {} }),
    );
    expect(reply.status).toBe(200);
    expect(reply.headers['mcp-session-id']).toBeUndefined();
    expect(JSON.parse(reply.body)).toEqual({
      jsonrpc: '2.0',
      id: 'probe-1',
      error: { code: -32601, message: 'The server has no such method.', data: { cause: 'method_not_found' } },
    });
  });
});

describe('idle sessions', () => {
  it('ends a session after --session-idle without requests and streams', async () => {
    const serve = await startServe(['--session-idle', '1']);
    const session = await rawSession(serve.port);
    await waitFor(
      () => serve.peer.stderr.some((line) => line.endsWith('a session was idle for 1 s: it ends')),
      {
        what: 'the idle line',
        timeoutMs: WAIT_MS,
      },
    );
    const reply = await raw(serve.port, 'POST', inSession(session), call(1, 'add', { a: 1, b: 1 }));
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).error.data.cause).toBe('session_not_found');
  });
});
