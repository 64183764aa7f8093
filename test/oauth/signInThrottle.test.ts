/**
 * A server that answers every request with 401 makes the bridge start a sign-in at most 5 times
 * a minute (src/oauth/upstreamAuth.ts; docs/limits.md#limits-sign-in): past that, the request fails at once
 * with `sign_in_throttled`, and no sign-in request reaches the server. The clock is the test's.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSignInFetch } from '../../src/edges/http/signInFetch.js';
import type { SignInFetch } from '../../src/edges/http/signInFetch.js';
import { createMemoryStore, createProcessLock } from '../../src/oauth/store/memoryStore.js';
import { createUpstreamAuth } from '../../src/oauth/upstreamAuth.js';
import { fakeConsent } from './fakeConsent.js';
import { signInConfig } from './signInHarness.js';
import { request } from './signInUpstream.js';

let server: Server | undefined;
let signInFetch: SignInFetch | undefined;

afterEach(async () => {
  signInFetch?.close();
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)));
  server = signInFetch = undefined;
});

/** Answers 401 to every POST, with a challenge that names its resource metadata; 404 to every GET. */
async function alwaysUnauthorized(): Promise<{ port: number; metadataGets: () => number }> {
  let gets = 0;
  server = createServer((req, res) => {
    const port = (server?.address() as AddressInfo).port;
    if (req.method === 'POST') {
      req.resume();
      res
        .writeHead(401, { 'www-authenticate': `Bearer resource_metadata="http://127.0.0.1:${port}/prm"` })
        .end();
      return;
    }
    if (req.url === '/prm') gets += 1;
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, metadataGets: () => gets };
}

describe('sign-ins caused by repeated 401s', () => {
  it('at most 5 a minute: the 6th to 20th request fail at once with sign_in_throttled', async () => {
    const hostile = await alwaysUnauthorized();
    const url = `http://127.0.0.1:${hostile.port}/mcp`;
    let clock = 1_000_000;
    const logs: string[] = [];
    signInFetch = createSignInFetch({ env: {}, mcpUrl: url });
    const auth = createUpstreamAuth(signInConfig({ url }), {
      fetch: signInFetch.fetch,
      store: createMemoryStore(),
      lock: createProcessLock(),
      logger: {
        log: (scope, level, text) => void logs.push(`${scope}: ${level}: ${text}`),
        enabled: () => true,
      },
      env: {},
      consent: fakeConsent(''),
      now: () => clock,
    });
    const outcome = (): Promise<string> =>
      request(signInFetch!.fetch, url, auth).then(
        () => 'passed',
        (error: unknown) => `${(error as { code?: string }).code}: ${(error as { detail?: string }).detail}`,
      );
    const outcomes: string[] = [];
    for (let i = 0; i < 20; i += 1) outcomes.push(await outcome());
    expect(hostile.metadataGets()).toBe(5);
    expect(outcomes).toEqual([
      ...Array<string>(5).fill('sign_in_failed: the upstream server has no protected resource metadata'),
      ...Array<string>(15).fill('sign_in_throttled: more than 5 sign-ins in 60 s'),
    ]);
    expect(logs.filter((line) => line.includes('more than 5 times'))).toHaveLength(15);
    expect(logs).toContain(
      'oauth: warn: the upstream server asked for a sign-in more than 5 times in 60 s: the bridge sends no sign-in request for it now',
    );

    // 59.999 s after the first start: still none.
    clock += 59_999;
    expect(await outcome()).toBe('sign_in_throttled: more than 5 sign-ins in 60 s');
    expect(hostile.metadataGets()).toBe(5);
    // 60 s after the first five: five more, then none again.
    clock += 1;
    for (let i = 0; i < 7; i += 1) outcomes.push(await outcome());
    expect(hostile.metadataGets()).toBe(10);
    expect(outcomes.slice(20)).toEqual([
      ...Array<string>(5).fill('sign_in_failed: the upstream server has no protected resource metadata'),
      ...Array<string>(2).fill('sign_in_throttled: more than 5 sign-ins in 60 s'),
    ]);
  });
});
