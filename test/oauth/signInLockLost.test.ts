/**
 * A process that loses the cross-process sign-in lock stops (security review finding 1;
 * reference-behaviors.md §6.4 "one sign-in at a time", §6.11). Two "processes": two
 * createUpstreamAuth instances, each with its own file lock on one lock directory, sharing one
 * store (as two bridges share the keychain or the token files). Process A stalls while it holds
 * the lock (its heartbeat never runs, as in a laptop sleep); B takes the lock over after B's stale
 * time. oidc-provider rotates refresh tokens, and its log of token requests shows every refresh
 * that reached it: the refresh token of the store is spent once, whatever A does after it wakes.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileLock } from '../../src/oauth/store/lock.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import type { TokenStore } from '../../src/oauth/store/types.js';
import { writingThrough } from './signInHarness.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { request, signInSuite } from './signInHarness.js';
import { recordingLogger, tempDir } from './storeTestKit.js';

const suite = signInSuite();
const { make, servers } = suite;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A gate that a test opens; `reached` resolves when the first request waits at it. */
function gate(): { wait: () => Promise<void>; open: () => void; reached: Promise<void> } {
  let open = (): void => undefined;
  let reach = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  return {
    wait: () => {
      reach();
      return opened;
    },
    open: () => open(),
    reached,
  };
}

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

/** A store holding a sign-in whose access token the server no longer takes, with a refresh token. */
async function expiredSignIn(): Promise<{
  store: TokenStore;
  as: Awaited<ReturnType<typeof servers>>['as'];
  url: string;
}> {
  const { as, mcp } = await servers();
  const store = createMemoryStore();
  const first = make({ config: { url: mcp.url }, store });
  expect((await request(suite.net.fetch, mcp.url, first.auth)).status).toBe(200);
  as.revokeAccessTokens(); // the next request gets 401; the refresh token stays valid
  return { store, as, url: mcp.url };
}

/** Every refresh token is sent at most once, over all the given processes. */
const spentOnce = (...sent: string[][]): void => {
  const all = sent.flat();
  expect(new Set(all).size).toBe(all.length);
};

const refreshes = (as: Awaited<ReturnType<typeof servers>>['as']): Array<[string | undefined, number]> =>
  as
    .tokenRequests()
    .filter((t) => t.grantType === 'refresh_token')
    .map((t) => [t.grantType, t.status]);

describe('a process that lost the sign-in lock (finding 1)', () => {
  it('after the other process refreshed, takes its token and spends the refresh token no second time', async () => {
    const { store, as, url } = await expiredSignIn();
    const aLocks = recordingLogger();
    const bLocks = recordingLogger();
    const aGate = gate();
    // A's heartbeat never runs within the test: the lock sees a stalled holder.
    const a = make({
      config: { url },
      store,
      lock: createFileLock({ directory: dir, heartbeatMs: 600_000, logger: aLocks }),
      gate: aGate.wait,
    });
    const b = make({
      config: { url },
      store,
      lock: createFileLock({ directory: dir, staleMs: 300, pollMs: 20, logger: bLocks }),
    });
    await Promise.all([a.auth.load(), b.auth.load()]);

    const aDone = request(suite.net.fetch, url, a.auth);
    await aGate.reached; // A holds the lock and is in discovery, about to refresh
    expect((await request(suite.net.fetch, url, b.auth)).status).toBe(200);
    aGate.open(); // A wakes up
    expect((await aDone).status).toBe(200);

    expect(refreshes(as)).toEqual([['refresh_token', 200]]);
    spentOnce(a.refreshTokens, b.refreshTokens);
    expect(b.refreshTokens).toHaveLength(1);
    expect(a.refreshTokens).toEqual([]);
    expect(a.auth.header()).toBe(b.auth.header());
    expect(a.opened).toEqual([]);
    expect(a.signInLines).toEqual([]);
    expect(bLocks.lines).toContain(
      'vscode: warn: the sign-in lock of another bridge process is taken over: its heartbeat stopped',
    );
    expect(aLocks.lines).toContain(
      'vscode: warn: the sign-in lock of this process was taken over by another bridge process',
    );
    expect(a.logs.map((l) => l.text)).toContain(
      'another bridge process took the sign-in lock over: the bridge reads the stored sign-in again',
    );
    expectNoSecrets({ lines: [], stderr: [...aLocks.lines, ...bLocks.lines] }, as.issuedSecrets());
  });

  it('while the other process still refreshes, waits for it instead of refreshing too', async () => {
    const { store, as, url } = await expiredSignIn();
    const aGate = gate();
    const bGate = gate();
    const a = make({
      config: { url },
      store,
      lock: createFileLock({ directory: dir, heartbeatMs: 600_000 }),
      gate: aGate.wait,
    });
    const b = make({
      config: { url },
      store,
      lock: createFileLock({ directory: dir, staleMs: 300, pollMs: 20 }),
      gate: bGate.wait,
    });
    await Promise.all([a.auth.load(), b.auth.load()]);

    const aDone = request(suite.net.fetch, url, a.auth);
    await aGate.reached;
    const bDone = request(suite.net.fetch, url, b.auth);
    await bGate.reached; // B took the lock over and is in discovery; nothing is stored yet
    aGate.open();
    // A finds the lock lost before it spends the refresh token, and waits for B's hold.
    while (!a.logs.some((l) => l.text.startsWith('another bridge process took the sign-in lock over')))
      await sleep(10);
    expect(a.refreshTokens).toEqual([]);
    bGate.open();
    expect((await bDone).status).toBe(200);
    expect((await aDone).status).toBe(200);

    expect(refreshes(as)).toEqual([['refresh_token', 200]]);
    spentOnce(a.refreshTokens, b.refreshTokens);
    expect(a.refreshTokens).toEqual([]);
    expect(a.auth.header()).toBe(b.auth.header());
    expect(a.opened).toEqual([]);
  });

  it('a hold lost while the refresh request waits aborts it and writes nothing; a new hold refreshes once', async () => {
    const { store, as, url } = await expiredSignIn();
    const locks = recordingLogger();
    const refreshGate = gate();
    const writes: Array<string | undefined> = [];
    const watched: TokenStore = {
      ...store,
      read: (key) => store.read(key),
      delete: (key) => store.delete(key),
      list: () => store.list(),
      write: (record) => {
        writes.push(locks.lines.at(-1)); // what the lock did last before the write
        return store.write(record);
      },
    };
    const a = make({
      config: { url },
      store: watched,
      lock: createFileLock({ directory: dir, heartbeatMs: 50, staleMs: 400, pollMs: 20, logger: locks }),
      gate: async (_url, form) => {
        if (form?.get('grant_type') === 'refresh_token') await refreshGate.wait();
      },
    });
    await a.auth.load();
    const done = request(suite.net.fetch, url, a.auth);
    await refreshGate.reached; // the hold was confirmed; the refresh request is about to go
    const [name] = (await readdir(dir)).filter((file) => file.endsWith('.lock'));
    // Another process took the lock over (it judged A's heartbeat stale) and has not written yet.
    await writeFile(
      path.join(dir, name ?? 'missing'),
      JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'other' }),
    );
    while (!locks.lines.some((line) => line.includes('taken over by another bridge process')))
      await sleep(10);
    refreshGate.open();
    expect((await done).status).toBe(200);

    // The first request never left; the second, under a new hold (after the other's stale time), did.
    expect(refreshes(as)).toEqual([['refresh_token', 200]]);
    expect(a.refreshTokens).toHaveLength(1);
    // One write, made under the new hold, after the other's lock was judged stale and taken over.
    expect(writes).toEqual([
      'vscode: warn: the sign-in lock of another bridge process is taken over: its heartbeat stopped',
    ]);
    expect(a.opened).toEqual([]);
    expect(locks.lines).toEqual([
      'vscode: warn: the sign-in lock of this process was taken over by another bridge process',
      'vscode: warn: the sign-in lock of another bridge process is taken over: its heartbeat stopped',
    ]);
  });

  it('a hold lost during a sign-in in the browser writes nothing, and takes what the new holder stored', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const locks = recordingLogger();
    let aWrites = 0;
    const a = make({
      config: { url: mcp.url },
      store: writingThrough(store, (record) => {
        aWrites += 1;
        return store.write(record);
      }),
      lock: createFileLock({ directory: dir, heartbeatMs: 50, staleMs: 400, pollMs: 20, logger: locks }),
    });
    a.browserMode = 'none';
    const aDone = request(suite.net.fetch, mcp.url, a.auth);
    while (a.opened.length === 0) await sleep(10);
    const [name] = (await readdir(dir)).filter((file) => file.endsWith('.lock'));
    await writeFile(
      path.join(dir, name ?? 'missing'),
      JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'other' }),
    );
    while (!locks.lines.some((line) => line.includes('taken over by another bridge process')))
      await sleep(10);
    // The process that took the lock over signs in and stores its sign-in.
    const b = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, b.auth)).status).toBe(200);
    // Now the user of A completes A's sign-in in the browser.
    await browse(a.opened[0] ?? '', { ca: suite.certs.caPem });
    expect((await aDone).status).toBe(200);

    expect(as.stats().codeGrants).toBe(2);
    expect(aWrites).toBe(0);
    expect(a.auth.header()).toBe(b.auth.header());
    const stored = await store.read({
      url: mcp.url,
      identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback',
    });
    expect(`Bearer ${stored?.accessToken ?? 'none'}`).toBe(b.auth.header());
  });

  it('under a hold it still has, reads the record again before the refresh and takes a newer one', async () => {
    const { store, as, url } = await expiredSignIn();
    const aGate = gate();
    const a = make({ config: { url }, store, lock: createFileLock({ directory: dir }), gate: aGate.wait });
    // A writer outside A's lock (another lock directory, or a bridge without the file lock).
    const b = make({ config: { url }, store });
    await Promise.all([a.auth.load(), b.auth.load()]);
    const aDone = request(suite.net.fetch, url, a.auth);
    await aGate.reached;
    expect((await request(suite.net.fetch, url, b.auth)).status).toBe(200);
    aGate.open();
    expect((await aDone).status).toBe(200);
    expect(refreshes(as)).toEqual([['refresh_token', 200]]);
    spentOnce(a.refreshTokens, b.refreshTokens);
    expect(a.refreshTokens).toEqual([]);
    expect(a.auth.header()).toBe(b.auth.header());
  });
});
