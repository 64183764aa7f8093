/**
 * Adversarial requests against the real loopback receiver (docs/sign-in.md#sign-in-receiver, docs/security.md#security-rules items
 * 5, 6, 10): none of them hangs, ends the sign-in where it must
 * not, or leaks the code, the state or the start token into a page or a log line.
 */
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../../src/oauth/receiver.js';
import type { Receiver, ReceiverLimits } from '../../src/oauth/receiver.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { get, open, pathOf, rawRequest, readAll, recordingLogger } from './receiverHttp.js';
import type { RawResponse } from './receiverHttp.js';

const STATE = 'st8Kq2Zr7Lw0Xc5Vb3Nm1Pa';
const CODE = 'cd4Gh7Jk2Lz9Qx6Wv1Tr8Ys';
const FOREIGN_CODE = 'fc3Mn8Bv5Cx2Zl7Kj4Hg1Df';
const AUTHORIZE = `https://as.example/authorize?response_type=code&state=${STATE}&client_id=c`;
const receivers: Receiver[] = [];
const servers: Server[] = [];

async function receiver(limits: Partial<ReceiverLimits> = {}) {
  const logger = recordingLogger();
  const r = await startReceiver({ port: 0, logger, limits });
  receivers.push(r);
  return { r, logger, port: Number(new URL(r.redirectUri).port) };
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** Resolves when the server closes the connection; fails instead of hanging past `bound` ms. */
function closedWithin(socket: Socket, bound: number): Promise<{ text: string; reset: boolean }> {
  return Promise.race([
    readAll(socket),
    new Promise<never>((_resolve, reject) =>
      setTimeout(
        () => reject(new Error(`the receiver kept the connection open for ${bound} ms`)),
        bound,
      ).unref(),
    ),
  ]);
}

/** A connection that sent a part of a request head (or, with `idle`, nothing) and nothing more. */
async function slowConnection(
  port: number,
  idle = false,
): Promise<{ socket: Socket; closed: Promise<{ text: string }>; isClosed: () => boolean }> {
  const socket = await open(port);
  let closed = false;
  const done = readAll(socket).then((result) => {
    closed = true;
    return result;
  });
  if (!idle) socket.write(`GET /callback?state=${STATE}`);
  return { socket, closed: done, isClosed: () => closed };
}

describe('loopback receiver under attack', () => {
  it('answers a huge request head with 431 and closes the connection, also when the head never ends', async () => {
    const { r, port, logger } = await receiver({ closeGraceMs: 300 });
    const { result } = r.expect({ state: STATE, authorizationUrl: AUTHORIZE, withStartUrl: false });
    const full = await rawRequest(
      port,
      `GET /callback HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Pad: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect([full.status, full.body]).toEqual([431, '']);
    const endless = await open(port);
    const closed = closedWithin(endless, 10_000);
    endless.write(`GET /callback HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Pad: ${'a'.repeat(40_000)}`);
    expect((await closed).text).toMatch(/^HTTP\/1\.1 431 /);
    // A head of almost 16 KiB is still read; the sign-in went on through all of it.
    const large = await rawRequest(
      port,
      `GET /callback?code=${CODE}&state=${STATE} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Pad: ${'a'.repeat(16_000)}\r\n\r\n`,
    );
    expect(large.status).toBe(200);
    expect((await result).code).toBe(CODE);
    expect(
      logger.lines.filter((line) => line.endsWith('refused a request head that is too large')),
    ).toHaveLength(2);
  });

  it('lets a real request in past 16 idle connections: each new one pushes out the oldest that sent no head', async () => {
    const { r, port, logger } = await receiver();
    const { result } = r.expect({ state: STATE, authorizationUrl: AUTHORIZE, withStartUrl: false });
    // Half send nothing, half a part of a head: neither has a complete head.
    const idle = [];
    for (let i = 0; i < 20; i += 1) idle.push(await slowConnection(port, i % 2 === 0));
    // 20 idle connections against a limit of 16: the 4 oldest were pushed out, without an answer.
    expect((await Promise.all(idle.slice(0, 4).map((c) => c.closed))).map((c) => c.text)).toEqual([
      '',
      '',
      '',
      '',
    ]);
    // The browser's request gets through at once, long before the 10 s head limit of the others.
    expect((await get(port, `/callback?code=${CODE}&state=${STATE}`)).status).toBe(200);
    expect((await result).code).toBe(CODE);
    // It pushed out the 5th oldest; the 15 younger idle ones are still open.
    await idle[4]!.closed;
    expect(idle.slice(5).filter((c) => c.isClosed())).toHaveLength(0);
    expect(logger.lines).toContain(
      'oauth: warn: the loopback receiver has 16 connections open: it closed the oldest one that sent no request',
    );
  });

  it('closes a slow-loris connection that keeps sending its head past the head time limit', async () => {
    const { r, port } = await receiver({ headTimeoutMs: 600 });
    const { result } = r.expect({ state: STATE, authorizationUrl: AUTHORIZE, withStartUrl: false });
    const socket = await open(port);
    const closed = closedWithin(socket, 10_000);
    socket.write(`GET /callback?state=${STATE} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    let sent = 0;
    const drip = setInterval(() => {
      if (socket.writable) {
        socket.write(`X-${sent}: a\r\n`);
        sent += 1;
      }
    }, 50);
    try {
      // Closed (with a FIN or, when the drip had bytes in flight, a reset) and without an answer.
      expect((await closed).text).toBe('');
    } finally {
      clearInterval(drip);
    }
    expect(sent).toBeGreaterThan(1);
    // The sign-in is not disturbed by it.
    expect((await get(port, `/callback?code=${CODE}&state=${STATE}`)).status).toBe(200);
    expect((await result).code).toBe(CODE);
  });

  it('refuses a busy port held by another program, on 127.0.0.1 or on all addresses', async () => {
    for (const host of ['127.0.0.1', '0.0.0.0']) {
      const other = createServer();
      servers.push(other);
      await new Promise<void>((resolve) => other.listen(0, host, resolve));
      const { port } = other.address() as { port: number };
      const logger = recordingLogger();
      await expect(startReceiver({ port, logger })).rejects.toMatchObject({
        code: 'redirect_port_unavailable',
        detail: `port ${port}: EADDRINUSE`,
      });
      expect(logger.lines).toEqual([
        `oauth: err: the loopback receiver cannot listen on port ${port}: EADDRINUSE`,
        `oauth: err: Another program uses the redirect port ${port}. Close it, or give the bridge another port with --redirect-port.`,
      ]);
    }
  });

  it('never echoes the code, the state or the start token in a page or a log line', async () => {
    const { r, port, logger } = await receiver();
    const { startUrl, result } = r.expect({ state: STATE, authorizationUrl: AUTHORIZE, withStartUrl: true });
    const token = pathOf(startUrl!).slice('/start/'.length);
    const pages: RawResponse[] = [];
    const send = async (path: string, expected: number) => {
      const page = await get(port, path);
      expect(page.status).toBe(expected);
      pages.push(page);
    };
    // A guessed token, and a token that differs in its last character.
    await send(`/start/${'A'.repeat(43)}`, 404);
    await send(`/start/${token.slice(0, 42)}${token.endsWith('A') ? 'B' : 'A'}`, 404);
    await send(`/start/${token}/${STATE}`, 404);
    // Wrong and missing state, with codes and markup in the query.
    await send(`/callback?code=${FOREIGN_CODE}&state=${STATE}x`, 400);
    await send(`/callback?code=${FOREIGN_CODE}&state=<script>${STATE}</script>`, 400);
    await send(`/callback?code=${FOREIGN_CODE}`, 400);
    await send(`/${CODE}?state=${STATE}`, 404);
    const start = await get(port, pathOf(startUrl!));
    expect(start.status).toBe(303);
    await send(`/callback?code=${CODE}&state=${STATE}&iss=https%3A%2F%2Fas.example`, 200);
    await send(`/callback?code=${FOREIGN_CODE}&state=${STATE}`, 400);
    await send(pathOf(startUrl!), 410);
    expect((await result).code).toBe(CODE);
    // The 303 is the one answer that must carry the authorization URL (with its state) to the browser.
    expect(start.headerLines).toContain(`Location: ${AUTHORIZE}`);
    const peer = {
      stderr: logger.lines,
      lines: pages.flatMap((page) => [...page.headerLines, page.body]),
    };
    expectNoSecrets(peer, [CODE, FOREIGN_CODE, STATE, token]);
    expect(pages.some((page) => page.body.includes('<script>'))).toBe(false);
    expect(logger.lines.length).toBeGreaterThan(4);
  });

  it('stops the sign-in on start URL reuse before the redirect, and a later redirect with the right state cannot revive it', async () => {
    const { r, port, logger } = await receiver();
    const { startUrl, result } = r.expect({ state: STATE, authorizationUrl: AUTHORIZE, withStartUrl: true });
    const token = pathOf(startUrl!).slice('/start/'.length);
    expect((await get(port, pathOf(startUrl!))).status).toBe(303);
    const reuse = await get(port, pathOf(startUrl!));
    expect(reuse.status).toBe(410);
    await expect(result).rejects.toMatchObject({ code: 'sign_in_start_reused' });
    const late = await get(port, `/callback?code=${CODE}&state=${STATE}`);
    expect(late.status).toBe(400);
    expectNoSecrets({ stderr: logger.lines, lines: [...reuse.headerLines, reuse.body, late.body] }, [
      CODE,
      STATE,
      token,
    ]);
  });
});
