/**
 * The bridge's side of a sign-in (docs/sign-in.md#sign-in-trigger, docs/sign-in.md#sign-in-consent, docs/http-upstream.md#http-listen-stream) with a
 * fake UpstreamAuth, the real HTTP upstream and the HTTP fixture as a protected resource: the
 * Authorization header on every POST, one challenge and one retry with a new id per request, the
 * browser path before `initialized`, the URL elicitation after it (accept, decline, cancel, a
 * client without URL elicitation), and the listen stream that waits for the next sign-in.
 */
import { NEVER, firstValueFrom } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { createHttpUpstream } from '../../src/edges/http/httpUpstream.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import type { Harness, Protection } from './consentHarness.js';
import {
  SIGN_IN_MESSAGE,
  SIGN_IN_URL,
  callTool,
  indexOf,
  initialize,
  initialized,
  protect,
  startHarness,
} from './consentHarness.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const isRequestFor = (method: string) => (frame: Frame) =>
  'method' in frame && frame.method === method && 'id' in frame;
const errorData = (frame: Frame): JsonObject | undefined =>
  'error' in frame ? (frame.error.data as JsonObject | undefined) : undefined;
const resultText = (frame: Frame): unknown =>
  'result' in frame
    ? (frame.result['content'] as Array<{ text?: string }> | undefined)?.[0]?.text
    : undefined;
const upstreamIds = (h: Harness, method: string): unknown[] =>
  h.fixture.received.filter((r) => r.method === method).map((r) => (r.body as { id?: unknown }).id);
const authorizations = (h: Harness, method: string): unknown[] =>
  h.fixture.received.filter((r) => r.method === method).map((r) => r.headers.authorization);

/** Initializes through the browser path of the fake (token-1), then sends initialized. */
async function ready(
  url: boolean,
  protection: Partial<Protection> = {},
): Promise<{ h: Harness; p: Protection }> {
  const h = await startHarness();
  harness = h;
  const p: Protection = { validToken: 'token-1', scopes: {}, ...protection };
  protect(h.fixture, h.auth, p);
  h.send(initialize(1, url));
  const response = await h.responseTo(1);
  expect('result' in response).toBe(true);
  h.send(initialized);
  // As VS Code does: the tools are listed first, so that a call goes out without a listing.
  h.send({ jsonrpc: '2.0', id: 'tools', method: 'tools/list', params: {} });
  expect('result' in (await h.responseTo('tools'))).toBe(true);
  return { h, p };
}

describe('the first sign-in during initialize', () => {
  it('a 401 of server/discover signs in without a question, and the retry has a new id and the token', async () => {
    const { h } = await ready(true);
    expect(
      h.auth.calls.map(({ status, method, phase, wwwAuthenticate, authorization }) => ({
        status,
        method,
        phase,
        wwwAuthenticate,
        authorization,
      })),
    ).toEqual([
      {
        status: 401,
        method: 'server/discover',
        phase: 'initializing',
        wwwAuthenticate: 'Bearer resource_metadata="https://rs.example.test/prm"',
        authorization: undefined,
      },
    ]);
    expect(authorizations(h, 'server/discover')).toEqual([undefined, 'Bearer token-1']);
    const [first, second] = upstreamIds(h, 'server/discover');
    expect(second).not.toBe(first);
    expect(h.out.filter(isRequestFor('elicitation/create'))).toEqual([]);
  });

  it('every later POST carries the token: calls, input rounds and listen streams', async () => {
    const { h } = await ready(true);
    h.send(callTool(2, 'echo', { text: 'hi' }));
    const call = await h.responseTo(2);
    expect(resultText(call)).toBe('hi');
    // An input round: the retry of round 2 is a POST of its own.
    const start = h.out.length;
    h.send(callTool(3, 'ask_form'));
    const form = await h.next(isRequestFor('elicitation/create'), start);
    h.send({
      jsonrpc: '2.0',
      id: 'id' in form ? form.id : '',
      result: { action: 'accept', content: { name: 'Ada', age: 36 } },
    });
    expect(resultText(await h.responseTo(3))).toBe('form: accept {"name":"Ada","age":36}');
    expect(authorizations(h, 'tools/call')).toHaveLength(3);
    const listens = (): unknown[] => authorizations(h, 'subscriptions/listen');
    await waitFor(() => listens().length > 0);
    expect(new Set([...authorizations(h, 'tools/call'), ...listens()])).toEqual(new Set(['Bearer token-1']));
  });
});

describe('a sign-in after initialized goes through a URL elicitation', () => {
  it('accept: the complete notification comes before the result, and the retry carries the new token', async () => {
    const { h, p } = await ready(true);
    p.validToken = 'token-2';
    h.auth.nextToken = 'token-2';
    const start = h.out.length;
    h.send(callTool(2, 'echo', { text: 'after' }));
    const question = await h.next(isRequestFor('elicitation/create'), start);
    expect(question).toEqual({
      jsonrpc: '2.0',
      id: 'b-1',
      method: 'elicitation/create',
      params: { mode: 'url', message: SIGN_IN_MESSAGE, url: SIGN_IN_URL, elicitationId: 'sign-in-1' },
    });
    h.send({ jsonrpc: '2.0', id: 'b-1', result: { action: 'accept' } });
    const result = await h.responseTo(2);
    expect(resultText(result)).toBe('after');
    const complete = await h.next(
      (frame) => 'method' in frame && frame.method === 'notifications/elicitation/complete',
    );
    expect(complete).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'sign-in-1' },
    });
    expect(indexOf(h.out, complete)).toBeLessThan(indexOf(h.out, result));
    expect(authorizations(h, 'tools/call')).toEqual(['Bearer token-1', 'Bearer token-2']);
    const ids = upstreamIds(h, 'tools/call');
    expect(new Set(ids).size).toBe(2);
    // The challenge learns which token the server refused: the one the POST carried.
    expect(h.auth.calls.at(-1)).toMatchObject({
      status: 401,
      method: 'tools/call',
      phase: 'ready',
      authorization: 'Bearer token-1',
    });
  });

  it('decline: the call fails with reauthorization_required (declined), without a complete notification', async () => {
    const { h, p } = await ready(true);
    p.validToken = 'token-2';
    const start = h.out.length;
    h.send(callTool(2, 'echo', { text: 'x' }));
    const question = await h.next(isRequestFor('elicitation/create'), start);
    h.send({ jsonrpc: '2.0', id: 'id' in question ? question.id : '', result: { action: 'decline' } });
    const response = await h.responseTo(2);
    expect('error' in response && response.error.code).toBe(-32603);
    expect(errorData(response)).toEqual({ cause: 'reauthorization_required', detail: 'declined' });
    expect(
      h.out.some((frame) => 'method' in frame && frame.method === 'notifications/elicitation/complete'),
    ).toBe(false);
    expect(authorizations(h, 'tools/call')).toEqual(['Bearer token-1']);
  });

  it('an error answer of the client counts as cancel', async () => {
    const { h, p } = await ready(true);
    p.validToken = 'token-2';
    const start = h.out.length;
    h.send(callTool(2, 'echo', { text: 'x' }));
    await h.next(isRequestFor('elicitation/create'), start);
    h.send({ jsonrpc: '2.0', id: 'b-1', error: { code: -32601, message: 'no' } });
    const response = await h.responseTo(2);
    expect(errorData(response)).toEqual({ cause: 'reauthorization_required', detail: 'declined' });
    expect(h.logs).toContain(
      'bridge: warn: the client answered the URL elicitation of the sign-in with an error or an invalid result',
    );
  });

  it('a cancel of the call sends notifications/cancelled for the elicitation, aborts the challenge, and no response', async () => {
    const { h, p } = await ready(true);
    p.validToken = 'token-2';
    const start = h.out.length;
    h.send(callTool(2, 'echo', { text: 'x' }));
    await h.next(isRequestFor('elicitation/create'), start);
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    const cancelled = await h.next(
      (frame) => 'method' in frame && frame.method === 'notifications/cancelled',
    );
    expect(cancelled).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'b-1', reason: 'the client canceled the request' },
    });
    expect(h.auth.calls.at(-1)?.signal.aborted).toBe(true);
    // A later request still works, and the call got no response.
    h.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    await h.responseTo(3);
    expect(h.out.some((frame) => 'id' in frame && frame.id === 2)).toBe(false);
  });

  it('a client without URL elicitation: the info line at start, no question, and the call fails alone', async () => {
    const { h, p } = await ready(false);
    expect(h.logs).toContain(
      'bridge: info: the client did not declare URL elicitation: a later sign-in fails, and a restart of the server signs in again',
    );
    p.validToken = 'token-2';
    h.send(callTool(2, 'echo', { text: 'x' }));
    const response = await h.responseTo(2);
    expect(errorData(response)).toEqual({ cause: 'reauthorization_required', detail: 'no_consent' });
    expect(h.out.filter(isRequestFor('elicitation/create'))).toEqual([]);
  });

  it('a client with URL elicitation gets no info line', async () => {
    const { h } = await ready(true);
    expect(h.logs.filter((line) => line.includes('did not declare URL elicitation'))).toEqual([]);
  });
});

describe('step-up and a second refusal', () => {
  it('a 403 insufficient_scope is stepped up once and the call succeeds', async () => {
    const { h } = await ready(true, { scopes: { echo: 'write' } });
    h.auth.nextScope = 'read write';
    const start = h.out.length;
    h.send(callTool(2, 'echo', { text: 'up' }));
    await h.next(isRequestFor('elicitation/create'), start);
    h.send({ jsonrpc: '2.0', id: 'b-1', result: { action: 'accept' } });
    expect(resultText(await h.responseTo(2))).toBe('up');
    expect(h.auth.calls.at(-1)).toMatchObject({
      status: 403,
      wwwAuthenticate: 'Bearer error="insufficient_scope", scope="write"',
    });
  });

  it('a second 403 after the step-up fails that call alone with access_refused', async () => {
    const { h } = await ready(true, { scopes: { echo: 'admin' } });
    h.send(callTool(2, 'echo', { text: 'no' }));
    await h.next(isRequestFor('elicitation/create'));
    h.send({ jsonrpc: '2.0', id: 'b-1', result: { action: 'accept' } });
    const response = await h.responseTo(2);
    expect(errorData(response)).toEqual({
      cause: 'access_refused',
      detail: 'tools/call: the upstream server refused the access after the sign-in, HTTP status 403',
    });
    expect(h.auth.calls.filter((call) => call.method === 'tools/call')).toHaveLength(1);
    h.send(callTool(3, 'add', { a: 1, b: 2 }));
    expect(resultText(await h.responseTo(3))).toBe('3');
  });
});

describe('the listen stream (docs/http-upstream.md#http-listen-stream)', () => {
  it('a 401 of the listen stream never starts a sign-in: it waits for the next sign-in, then opens again', async () => {
    const h = await startHarness();
    harness = h;
    const p: Protection = { validToken: 'token-1', scopes: {}, refuseListen: 401 };
    protect(h.fixture, h.auth, p);
    h.send(initialize(1, true));
    await h.responseTo(1);
    h.send(initialized);
    await waitFor(() =>
      h.logs.includes(
        'bridge: warn: the listen stream failed with the HTTP status 401; the next one opens after the next sign-in.',
      ),
    );
    expect(h.auth.calls.map((call) => call.method)).toEqual(['server/discover']);
    const before = h.fixture.received.filter((r) => r.method === 'subscriptions/listen').length;
    p.refuseListen = undefined;
    h.auth.signedInSubject.next();
    await waitFor(
      () => h.fixture.received.filter((r) => r.method === 'subscriptions/listen').length > before,
    );
    expect(h.logs).toContain('bridge: info: a sign-in completed; the listen stream opens again.');
  });
});

describe('without a sign-in', () => {
  it('a sign-in together with a static authorization header is a configuration error', async () => {
    const lines: string[] = [];
    const upstream = createHttpUpstream(
      {
        url: 'http://127.0.0.1:9/mcp',
        env: {},
        headers: [{ name: 'authorization', value: 'Bearer static' }],
        auth: { header: () => undefined, challenge: () => Promise.resolve(), signedIn$: NEVER },
      },
      { log: (_scope, level, text) => lines.push(`${level}: ${text}`), enabled: () => true },
    );
    await expect(firstValueFrom(upstream.request('tools/list', {}))).rejects.toMatchObject({
      code: 'connect_failed',
    });
    expect(lines).toEqual([
      'err: cannot make the HTTP client for the upstream server: a static authorization header and a sign-in cannot be used together',
    ]);
    upstream.close();
  });

  it('a 401 keeps the behaviour of the HTTP upstream: initialize fails with HTTP status 401', async () => {
    const h = await startHarness({ auth: 'none' });
    harness = h;
    protect(h.fixture, h.auth, { validToken: 'token-1', scopes: {} });
    h.send(initialize(1, true));
    const response = await h.responseTo(1);
    expect(errorData(response)).toEqual({
      cause: 'transport_failed',
      detail: 'server/discover: the upstream server refused the access, HTTP status 401',
    });
    expect(h.fixture.received.filter((r) => r.method === 'server/discover')).toHaveLength(1);
  });
});
