/**
 * Smoke tests of the scripted test browser (test/fixtures/oauth/testBrowser.ts) as the bridge
 * will use it: the executable wrapper from `testBrowserPath()` run without a shell, with one
 * argument, in each mode, against a stand-in receiver (a start URL that 303s to the oidc-provider
 * test server, and a `/callback` page); and its cookie jar. Needs the build (`npm run build`).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import { createCookieJar } from '../fixtures/oauth/cookieJar.js';
import { pkcePair } from '../fixtures/oauth/oauthClient.js';
import { readBrowserLog, testBrowserPath } from '../fixtures/oauth/testBrowser.js';
import { listenLoopback } from '../fixtures/loopbackServer.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';

const RESOURCE = 'https://127.0.0.1:9/mcp';
const START_TOKEN = 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v';

let certs: TestCerts;
let dir: string;
let caFile: string;
let as: AuthServer;
let receiver: { port: number; close(): Promise<void> };
let startHits = 0;
let callbacks: URL[] = [];
let authorizationUrl = '';
let logCounter = 0;

beforeAll(async () => {
  certs = makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), 'mcp-test-browser-test-'));
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, certs.caPem);
  const { server, port, sockets } = await listenLoopback((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === `/start/${START_TOKEN}`) {
      startHits += 1;
      return void response.writeHead(303, { location: authorizationUrl }).end();
    }
    if (url.pathname === '/callback') callbacks.push(url);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }, undefined);
  receiver = {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  // A public client registered for the stand-in receiver.
  as = await startAuthServer({
    tls: certs,
    caPem: certs.caPem,
    resource: RESOURCE,
    clients: [
      {
        client_id: 'browser-client',
        token_endpoint_auth_method: 'none',
        redirect_uris: [`http://127.0.0.1:${port}/callback`],
      },
    ],
  });
});

afterEach(() => {
  startHits = 0;
  callbacks = [];
});

afterAll(async () => {
  await receiver.close();
  await as.close();
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh authorization URL of a pre-registered public client. */
function freshAuthorizationUrl(): void {
  const url = new URL(`${as.issuer}/auth`);
  const params = {
    response_type: 'code',
    client_id: 'browser-client',
    redirect_uri: `http://127.0.0.1:${receiver.port}/callback`,
    scope: 'mcp:read',
    state: 'browser-state',
    resource: RESOURCE,
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  authorizationUrl = url.href;
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly log: ReturnType<typeof readBrowserLog>;
}

function run(args: readonly string[], env: Record<string, string>): Promise<Run> {
  const log = join(dir, `browser-${++logCounter}.log`);
  return new Promise((resolve) => {
    // The program path itself, no shell, like the bridge's opener.
    execFile(
      testBrowserPath(),
      [...args],
      { env: { PATH: process.env['PATH'] ?? '', TEST_BROWSER_LOG: log, ...env }, timeout: 20_000 },
      (error, stdout) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, log: readBrowserLog(log) });
      },
    );
  });
}

const startUrl = (): string => `http://127.0.0.1:${receiver.port}/start/${START_TOKEN}`;

describe('test browser executable', () => {
  it('is an executable #!/usr/bin/env node file', () => {
    const path = testBrowserPath();
    expect(readFileSync(path, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o755);
    expect(testBrowserPath()).toBe(path);
  });

  it('follows the start URL through the sign-in to the callback, logs one line, prints nothing', async () => {
    freshAuthorizationUrl();
    const result = await run([startUrl()], { TEST_BROWSER_CA_FILE: caFile });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.log).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    expect(startHits).toBe(1);
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0]?.searchParams.get('state')).toBe('browser-state');
    expect(callbacks[0]?.searchParams.get('iss')).toBe(as.issuer);
    expect(callbacks[0]?.searchParams.has('code')).toBe(true);
    expect(readFileSync(join(dir, `browser-${logCounter}.log`), 'utf8')).not.toContain(START_TOKEN);
  });

  it('fails with exit 1 when it does not trust the test CA', async () => {
    freshAuthorizationUrl();
    const result = await run([startUrl()], {});
    expect(result.code).toBe(1);
    expect(callbacks).toHaveLength(0);
  });

  it('refuses two arguments with exit 2 and fetches nothing', async () => {
    const result = await run([startUrl(), 'extra'], { TEST_BROWSER_CA_FILE: caFile });
    expect(result.code).toBe(2);
    expect(result.log).toEqual([{ argc: 2, startUrl: false, mode: 'follow' }]);
    expect(startHits).toBe(0);
  });

  it('twice: GETs the start URL twice, then follows', async () => {
    freshAuthorizationUrl();
    const result = await run([startUrl()], { TEST_BROWSER_CA_FILE: caFile, TEST_BROWSER_MODE: 'twice' });
    expect(result.code).toBe(0);
    expect(result.log).toEqual([{ argc: 1, startUrl: true, mode: 'twice' }]);
    expect(startHits).toBe(2);
    expect(callbacks).toHaveLength(1);
  });

  it('deny: the interaction ends with access_denied at the callback', async () => {
    freshAuthorizationUrl();
    const result = await run([startUrl()], { TEST_BROWSER_CA_FILE: caFile, TEST_BROWSER_MODE: 'deny' });
    expect(result.code).toBe(0);
    expect(callbacks[0]?.searchParams.get('error')).toBe('access_denied');
  });

  it('record and hang: log the call, fetch nothing', async () => {
    const recorded = await run([startUrl()], { TEST_BROWSER_MODE: 'record' });
    expect(recorded.code).toBe(0);
    expect(recorded.log).toEqual([{ argc: 1, startUrl: true, mode: 'record' }]);
    const hung = await run(['http://127.0.0.1:1/other'], {
      TEST_BROWSER_MODE: 'hang',
      TEST_BROWSER_HANG_MS: '300',
    });
    expect(hung.code).toBe(0);
    expect(hung.log).toEqual([{ argc: 1, startUrl: false, mode: 'hang' }]);
    expect(startHits).toBe(0);
  });
});

describe('built fixtures', () => {
  it('load oidc-provider on this Node without its start-up warning', async () => {
    const module = new URL('../../dist/test/fixtures/oauth/authServer.js', import.meta.url);
    const stderr = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', `await import(${JSON.stringify(module.href)});`],
        (error, _out, err) => (error === null ? resolve(err) : reject(new Error(error.message))),
      );
    });
    expect(stderr).toBe('');
  });
});

describe('test browser cookie jar', () => {
  it('sends cookies by origin and path, and drops expired ones', () => {
    let now = 1_000_000;
    const jar = createCookieJar(() => now);
    const as = new URL('https://127.0.0.1:8443/auth');
    jar.store(new URL('https://127.0.0.1:8443/interaction/abc'), [
      '_interaction=one; path=/interaction/abc; secure; httponly',
      '_session=two; path=/; max-age=60',
      'bad-cookie-without-equals',
    ]);
    expect(jar.header(as)).toBe('_session=two');
    expect(jar.header(new URL('https://127.0.0.1:8443/interaction/abc'))).toBe(
      '_interaction=one; _session=two',
    );
    expect(jar.header(new URL('https://127.0.0.1:8443/interaction/abcdef'))).toBe('_session=two');
    expect(jar.header(new URL('https://127.0.0.1:9999/auth'))).toBeUndefined();
    jar.store(as, ['_interaction=gone; path=/interaction/abc; expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    jar.store(new URL('https://127.0.0.1:8443/interaction/abc'), [
      '_interaction=gone; path=/interaction/abc; expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ]);
    expect(jar.header(new URL('https://127.0.0.1:8443/interaction/abc'))).toBe('_session=two');
    now += 61_000;
    expect(jar.header(as)).toBeUndefined();
    expect(jar.size()).toBe(0);
  });
});
