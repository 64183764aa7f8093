/**
 * A process that loses the cross-process sign-in lock stops (docs/sign-in.md#sign-in-lock,
 * docs/sign-in.md#sign-in-trigger "one sign-in at a time", docs/sign-in.md#sign-in-stores). Two "processes": two
 * createUpstreamAuth instances, each with its own file lock on one lock directory, sharing one
 * store (as two bridges share the keychain or the token files). Process A stalls while it holds
 * the lock (its heartbeat never runs, as in a laptop sleep); B takes the lock over after B's stale
 * time. oidc-provider rotates refresh tokens, and its log of token requests shows every refresh
 * that reached it: the refresh token of the store is spent once, whatever A does after it wakes.
 */
import { readdir, unlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileLock } from '../../src/oauth/store/lock.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import type { TokenStore } from '../../src/oauth/store/types.js';
import { writingThrough } from './signInHarness.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { waitFor } from '../helpers/waitFor.js';
import { request, signInSuite } from './signInHarness.js';
import { recordingLogger, tempDir } from './storeTestKit.js';

const suite = signInSuite();
const { make, servers } = suite;

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

describe('a process that lost the sign-in lock', () => {
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
      'tokens: warn: the sign-in lock of another bridge process is taken over: its heartbeat stopped',
    );
    expect(aLocks.lines).toContain(
      'tokens: warn: the sign-in lock of this process was taken over by another bridge process',
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
    await expect
      .poll(
        () => a.logs.some((l) => l.text.startsWith('another bridge process took the sign-in lock over')),
        { timeout: 10_000 },
      )
      .toBe(true);
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

  it('a hold lost while the refresh request is out stores nothing; the new hold sends that refresh token no second time and signs in anew', async () => {
    const { store, as, url } = await expiredSignIn();
    const locks = recordingLogger();
    const refreshGate = gate();
    const writes: Array<{ lock: string | undefined; marked: boolean }> = [];
    const watched = writingThrough(store, (record) => {
      // What the lock did last before the write, and whether the record marks a refresh as sent.
      writes.push({ lock: locks.lines.at(-1), marked: record.refreshInFlight !== undefined });
      return store.write(record);
    });
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
    await refreshGate.reached; // the hold was confirmed, the refresh marked; its request is out
    const [name] = (await readdir(dir)).filter((file) => file.endsWith('.lock'));
    // Another process took the lock over (it judged A's heartbeat stale) and has not written yet.
    await writeFile(
      path.join(dir, name ?? 'missing'),
      JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'other' }),
    );
    await expect
      .poll(() => locks.lines.some((line) => line.includes('taken over by another bridge process')), {
        timeout: 10_000,
      })
      .toBe(true);
    refreshGate.open();
    expect((await done).status).toBe(200);

    // Whether the request reached the server or not, its answer never came: the refresh token
    // is not sent again (here it never left: the lost hold aborted it); a sign-in follows.
    expect(refreshes(as)).toEqual([]);
    expect(a.refreshTokens).toEqual([]);
    expect(as.stats().codeGrants).toBe(2); // the first sign-in of expiredSignIn, and this one
    expect(a.opened).toHaveLength(1);
    // The mark under the first hold; the new sign-in under the new hold, after the takeover.
    expect(writes).toEqual([
      { lock: undefined, marked: true },
      {
        lock: 'tokens: warn: the sign-in lock of another bridge process is taken over: its heartbeat stopped',
        marked: false,
      },
    ]);
    expect(a.logs.map((l) => l.text)).toContain(
      'a refresh of the stored sign-in got no answer (a bridge stopped during it): its refresh token is not sent again, a new sign-in follows',
    );
    expect(locks.lines).toEqual([
      'tokens: warn: the sign-in lock of this process was taken over by another bridge process',
      'tokens: info: waits for the sign-in of another bridge process',
      'tokens: warn: the sign-in lock of another bridge process is taken over: its heartbeat stopped',
    ]);
  });

  it('a hold lost during a sign-in in the browser ends that sign-in, writes nothing, and takes what the new holder stored', async () => {
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
    await waitFor(() => a.opened.length > 0, { what: 'the browser of A' });
    const [name] = (await readdir(dir)).filter((file) => file.endsWith('.lock'));
    const lockFile = path.join(dir, name ?? 'missing');
    // Another process takes the lock over and keeps its heartbeat while it signs in.
    await writeFile(lockFile, JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'other' }));
    const beat = setInterval(() => {
      const now = new Date();
      void utimes(lockFile, now, now).catch(() => undefined);
    }, 50);
    let b: ReturnType<typeof make>;
    try {
      // A stops its sign-in (no user completes it) and waits for the lock again.
      await waitFor(
        () => a.logs.some((l) => l.text.startsWith('another bridge process took the sign-in lock over')),
        { what: 'the line of the lost lock' },
      );
      // Its start URL is dead: the receiver closed with the sign-in.
      await expect(browse(a.opened[0] ?? '', { ca: suite.certs.caPem })).rejects.toThrow();
      b = make({ config: { url: mcp.url }, store });
      expect((await request(suite.net.fetch, mcp.url, b.auth)).status).toBe(200);
    } finally {
      clearInterval(beat);
    }
    await unlink(lockFile); // the other process is done and releases its lock
    expect((await aDone).status).toBe(200);

    expect(as.stats().codeGrants).toBe(1); // B's only
    expect(aWrites).toBe(0);
    // It stopped at the loss, not at the end of its time limit.
    expect(a.logs.filter((l) => l.text.startsWith('The sign-in did not complete'))).toEqual([]);
    expect(a.opened).toHaveLength(1);
    expect(a.auth.header()).toBe(b.auth.header());
  });

  it('a refresh whose answer never came (its holder was killed): the next holder does not send that refresh token again and signs in anew', async () => {
    const { store, as, url } = await expiredSignIn();
    let loseAnswer = (): void => undefined;
    const lost = new Promise<Response>(
      (_resolve, reject) => (loseAnswer = () => reject(new TypeError('fetch failed'))),
    );
    const refreshed = gate();
    // A's heartbeat never runs within the test: the lock sees a dead holder, as after a SIGKILL.
    const a = make({
      config: { url },
      store,
      lock: createFileLock({ directory: dir, heartbeatMs: 600_000 }),
      // The server takes the refresh (and rotates the token); its answer never reaches A.
      answer: (form, response) =>
        form?.get('grant_type') === 'refresh_token'
          ? response.then(() => {
              void refreshed.wait();
              return lost;
            })
          : response,
    });
    const b = make({
      config: { url },
      store,
      lock: createFileLock({ directory: dir, staleMs: 300, pollMs: 20 }),
    });
    await Promise.all([a.auth.load(), b.auth.load()]);
    const aDone = request(suite.net.fetch, url, a.auth);
    await refreshed.reached;
    expect(refreshes(as)).toEqual([['refresh_token', 200]]);

    expect((await request(suite.net.fetch, url, b.auth)).status).toBe(200);
    // The refresh token A sent is not sent again: B signed in in the browser instead.
    expect(refreshes(as)).toEqual([['refresh_token', 200]]);
    expect(b.refreshTokens).toEqual([]);
    expect(b.opened).toHaveLength(1);
    expect(as.stats().codeGrants).toBe(2);
    expect(b.logs.map((l) => l.text)).toContain(
      'a refresh of the stored sign-in got no answer (a bridge stopped during it): its refresh token is not sent again, a new sign-in follows',
    );

    // Should A still come back, it finds its hold lost: no browser, and it takes B's sign-in.
    loseAnswer();
    expect((await aDone).status).toBe(200);
    expect(a.opened).toEqual([]);
    expect(a.signInLines).toEqual([]);
    expect(a.refreshTokens).toHaveLength(1);
    expect(a.auth.header()).toBe(b.auth.header());
    expect(refreshes(as)).toEqual([['refresh_token', 200]]);
  });

  it('a holder that stalled before its sign-in and lost the lock opens no browser and writes no sign-in line', async () => {
    const { as, mcp } = await servers();
    const store = createMemoryStore();
    const aGate = gate();
    const a = make({
      config: { url: mcp.url },
      store,
      lock: createFileLock({ directory: dir, heartbeatMs: 600_000 }),
      gate: aGate.wait,
    });
    const b = make({
      config: { url: mcp.url },
      store,
      lock: createFileLock({ directory: dir, staleMs: 300, pollMs: 20 }),
    });
    const aDone = request(suite.net.fetch, mcp.url, a.auth);
    await aGate.reached; // A holds the lock and stalls in discovery
    expect((await request(suite.net.fetch, mcp.url, b.auth)).status).toBe(200);
    aGate.open(); // A wakes up, past the lock's stale time
    expect((await aDone).status).toBe(200);

    expect(a.opened).toEqual([]);
    expect(a.signInLines).toEqual([]);
    expect(b.opened).toHaveLength(1);
    expect(as.stats().codeGrants).toBe(1);
    expect(a.auth.header()).toBe(b.auth.header());
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
