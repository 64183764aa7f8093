/**
 * The loopback receiver and the one-time start URL (docs/sign-in.md#sign-in-receiver, docs/security.md#security-rules items 5, 6),
 * against the real server on 127.0.0.1 with raw HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isReceiverHost, RECEIVER_LIMITS, startReceiver } from '../../src/oauth/receiver.js';
import type { Receiver } from '../../src/oauth/receiver.js';
import { get, open, pathOf, rawRequest, readAll, recordingLogger } from './receiverHttp.js';

const AUTHORIZE = 'https://as.example/authorize?response_type=code&state=st-1&client_id=c';
const open_: Receiver[] = [];

async function receiver(options: { port?: number; random?: (n: number) => Buffer } = {}) {
  const logger = recordingLogger();
  const r = await startReceiver({
    port: options.port ?? 0,
    logger,
    ...(options.random ? { random: options.random } : {}),
  });
  open_.push(r);
  return { r, logger, port: Number(new URL(r.redirectUri).port) };
}

afterEach(async () => {
  await Promise.all(open_.splice(0).map((r) => r.close()));
});

describe('loopback receiver', () => {
  it('has the limits of §6.6 by default: head in 10 s, head of 16 KiB, 16 connections, 2 s close grace; 25 ms owner retry, 30 s start watch', () => {
    expect(RECEIVER_LIMITS).toEqual({
      headTimeoutMs: 10_000,
      maxHeadBytes: 16_384,
      maxConnections: 16,
      closeGraceMs: 2_000,
      ownerRetryMs: 25,
      startWatchMs: 30_000,
    });
  });

  it('listens on 127.0.0.1 only, with the redirect URI http://127.0.0.1:<port>/callback', async () => {
    const { r, port } = await receiver();
    expect(r.redirectUri).toBe(`http://127.0.0.1:${port}/callback`);
    // 127.0.0.2 is a loopback address too, but not the one the receiver listens on.
    await expect(open(port, '127.0.0.2')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('ends the wait with 200 on a GET of /callback with the matching state and a code', async () => {
    const { r, port } = await receiver();
    const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    const page = await get(port, '/callback?code=c-1&state=st-1&iss=https%3A%2F%2Fas.example');
    expect(page.status).toBe(200);
    const redirect = await result;
    expect(redirect).toEqual({
      code: 'c-1',
      iss: 'https://as.example',
      callbackUrl: new URL(
        `http://127.0.0.1:${port}/callback?code=c-1&state=st-1&iss=https%3A%2F%2Fas.example`,
      ),
    });
  });

  it('ends the wait with 200 on an error redirect, with the error and its description', async () => {
    const { r, port } = await receiver();
    const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    expect(
      (await get(port, '/callback?error=access_denied&error_description=no+way&state=st-1')).status,
    ).toBe(200);
    const redirect = await result;
    expect(redirect.error).toBe('access_denied');
    expect(redirect.errorDescription).toBe('no way');
    expect(redirect.code).toBeUndefined();
  });

  it('answers 400 to a wrong, missing or repeated state and to a redirect without code and error, and waits on', async () => {
    const { r, port, logger } = await receiver();
    const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    expect((await get(port, '/callback?code=c-1&state=st-2')).status).toBe(400);
    expect((await get(port, '/callback?code=c-1&state=st-')).status).toBe(400);
    expect((await get(port, '/callback?code=c-1')).status).toBe(400);
    expect((await get(port, '/callback?code=c-1&state=st-1&state=st-1')).status).toBe(400);
    expect((await get(port, '/callback?state=st-1')).status).toBe(400);
    expect((await get(port, '/callback?code=c-1&code=c-2&state=st-1')).status).toBe(400);
    expect((await get(port, '/callback?code=c-9&state=st-1')).status).toBe(200);
    expect((await result).code).toBe('c-9');
    expect(logger.lines.filter((line) => line.includes('wrong or missing state'))).toHaveLength(5);
  });

  it('answers 400 to a redirect after the wait ended, and to one before any wait', async () => {
    const { r, port } = await receiver();
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(400);
    const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    expect((await get(port, '/callback?code=c-2&state=st-1')).status).toBe(400);
    expect((await result).code).toBe('c-1');
  });

  it('answers 404 to other paths, 405 to other methods, 400 to another Host or an absolute target', async () => {
    const { r, port } = await receiver();
    const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    expect((await get(port, '/')).status).toBe(404);
    expect((await get(port, '/callback/x?code=c-1&state=st-1')).status).toBe(404);
    expect((await get(port, '//evil.example/callback?code=c-1&state=st-1')).status).toBe(404);
    const post = await get(port, '/callback?code=c-1&state=st-1', 'POST');
    expect([post.status, post.headerLines.includes('Allow: GET')]).toEqual([405, true]);
    const rebound = await rawRequest(
      port,
      'GET /callback?code=c-1&state=st-1 HTTP/1.1\r\nHost: evil.example\r\n\r\n',
    );
    expect(rebound.status).toBe(400);
    // Two Host headers: Node keeps the first in `headers`, so the right one first must not pass.
    const twoHosts = await rawRequest(
      port,
      `GET /callback?code=c-1&state=st-1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: evil.example\r\n\r\n`,
    );
    expect(twoHosts.status).toBe(400);
    const absolute = await rawRequest(
      port,
      `GET http://127.0.0.1:${port}/callback?code=c-1&state=st-1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    );
    expect(absolute.status).toBe(400);
    // None of them ended the wait.
    expect((await get(port, '/callback?code=c-2&state=st-1')).status).toBe(200);
    expect((await result).code).toBe('c-2');
  });
});

describe('one-time start URL', () => {
  it('is /start/<43 base64url characters> and answers its first GET with a 303 and exactly the §6.6 headers', async () => {
    const { r, port } = await receiver();
    const { startUrl } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: true });
    expect(startUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/start/[A-Za-z0-9_-]{43}$`));
    const page = await get(port, pathOf(startUrl!));
    expect(page.status).toBe(303);
    expect(page.headerLines).toEqual([
      `Location: ${AUTHORIZE}`,
      'Cache-Control: no-store',
      'Referrer-Policy: no-referrer',
      'Content-Length: 0',
      'Connection: close',
    ]);
    expect(page.body).toBe('');
  });

  it('gives a new token for every wait', async () => {
    const { r, port } = await receiver();
    const first = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: true });
    await get(port, '/callback?code=c-1&state=st-1');
    await first.result;
    const second = r.expect({ state: 'st-2', authorizationUrl: AUTHORIZE, withStartUrl: true });
    expect(second.startUrl).not.toBe(first.startUrl);
    expect((await get(port, pathOf(first.startUrl!))).status).toBe(404);
  });

  it('answers a second GET before the redirect with 410 "Start the sign-in again." and stops the sign-in', async () => {
    const { r, port, logger } = await receiver();
    const { startUrl, result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: true });
    expect((await get(port, pathOf(startUrl!))).status).toBe(303);
    const second = await get(port, pathOf(startUrl!));
    expect(second.status).toBe(410);
    expect(second.body).toContain('Start the sign-in again.');
    await expect(result).rejects.toMatchObject({
      name: 'BridgeError',
      code: 'sign_in_start_reused',
      detail: undefined,
    });
    // The sign-in stopped: a later redirect gets 400, the start path 404.
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(400);
    expect((await get(port, pathOf(startUrl!))).status).toBe(404);
    expect(logger.lines).toContain(
      'oauth: warn: the start URL of the sign-in received a second request before the redirect, thus the bridge stopped the sign-in',
    );
  });

  it('answers 404 to a wrong token and keeps the sign-in going', async () => {
    const { r, port } = await receiver();
    const { startUrl, result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: true });
    const token = pathOf(startUrl!).slice('/start/'.length);
    const wrong = `${token.slice(0, 42)}${token.endsWith('A') ? 'B' : 'A'}`;
    expect((await get(port, `/start/${wrong}`)).status).toBe(404);
    expect((await get(port, `/start/${token}x`)).status).toBe(404);
    expect((await get(port, '/start/')).status).toBe(404);
    expect((await get(port, pathOf(startUrl!))).status).toBe(303);
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    expect((await result).code).toBe('c-1');
  });

  it('answers 404 on the start path after the sign-in was aborted; the result rejects with the reason', async () => {
    const { r, port } = await receiver();
    const controller = new AbortController();
    const { startUrl, result } = r.expect({
      state: 'st-1',
      authorizationUrl: AUTHORIZE,
      withStartUrl: true,
      signal: controller.signal,
    });
    controller.abort(new Error('time limit'));
    await expect(result).rejects.toThrow('time limit');
    expect((await get(port, pathOf(startUrl!))).status).toBe(404);
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(400);
  });

  it('serves no start path without withStartUrl (--no-browser)', async () => {
    const { r, port } = await receiver();
    const armed = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    expect(armed.startUrl).toBeUndefined();
    expect((await get(port, '/start/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });

  it('gives no start URL and logs the §6.6 warning when there is no random data', async () => {
    const { r, logger } = await receiver({
      random: () => {
        throw new Error('no entropy');
      },
    });
    const armed = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: true });
    expect(armed.startUrl).toBeUndefined();
    expect(logger.lines).toEqual([
      'oauth: warn: the bridge has no random data for the start URL, thus it does not open the browser',
    ]);
  });

  it('refuses an authorization URL with a line break or a space, which would split the 303 head', async () => {
    const { r } = await receiver();
    for (const bad of [`${AUTHORIZE}\r\nSet-Cookie: a=b`, `${AUTHORIZE} x`]) {
      expect(() => r.expect({ state: 'st-1', authorizationUrl: bad, withStartUrl: true })).toThrow(
        'the authorization URL holds characters outside visible ASCII',
      );
    }
  });

  it('refuses a second wait while the first waits for its redirect', async () => {
    const { r } = await receiver();
    r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    expect(() => r.expect({ state: 'st-2', authorizationUrl: AUTHORIZE, withStartUrl: false })).toThrow(
      'the loopback receiver already waits for a sign-in',
    );
  });
});

describe('port', () => {
  it('rejects with redirect_port_unavailable and logs the §6.6 lines when the port is busy', async () => {
    const { port } = await receiver();
    const logger = recordingLogger();
    const failed = await startReceiver({ port, logger }).catch((error: unknown) => error);
    expect(failed).toMatchObject({
      name: 'BridgeError',
      code: 'redirect_port_unavailable',
      detail: `port ${port}: EADDRINUSE`,
    });
    expect(logger.lines).toEqual([
      `oauth: err: the loopback receiver cannot listen on port ${port}: EADDRINUSE`,
      `oauth: err: Another program uses the redirect port ${port}. Close it, or give the bridge another port with --redirect-port.`,
    ]);
  });

  it('releases the port on close: 20 sequential start/close on the same port', async () => {
    const { r: first, port } = await receiver();
    await first.close();
    let started = 0;
    for (let run = 0; run < 20; run += 1) {
      const r = await startReceiver({ port, logger: recordingLogger() });
      const { result } = r.expect({ state: `st-${run}`, authorizationUrl: AUTHORIZE, withStartUrl: true });
      expect((await get(port, `/callback?code=c&state=st-${run}`)).status).toBe(200);
      await result;
      await r.close();
      started += 1;
    }
    expect(started).toBe(20);
  });

  it('rejects a pending result on close and closes connections that sent no head', async () => {
    const { r, port } = await receiver();
    const { result } = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: false });
    const idle = await open(port);
    const idleDone = readAll(idle);
    await r.close();
    await expect(result).rejects.toThrow('the loopback receiver closed before the redirect');
    expect((await idleDone).text).toBe('');
    await expect(open(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});

describe('isReceiverHost', () => {
  it.each([
    ['127.0.0.1:41894', 41894, true],
    ['127.0.0.1:80', 80, true],
    ['127.0.0.1', 80, true],
    ['127.0.0.1', 41894, false],
    ['127.0.0.1:41895', 41894, false],
    ['localhost:41894', 41894, false],
    ['evil.example:41894', 41894, false],
    ['127.0.0.1:41894.evil.example', 41894, false],
    [undefined, 41894, false],
    [['127.0.0.1:41894'], 41894, true],
    [['127.0.0.1:41894', '127.0.0.1:41894'], 41894, false],
    [['127.0.0.1:41894', 'evil.example'], 41894, false],
    [[], 41894, false],
  ])('%s on port %s -> %s', (host, port, expected) => {
    expect(isReceiverHost(host, port)).toBe(expected);
  });
});
