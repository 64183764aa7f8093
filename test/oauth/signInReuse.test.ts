/**
 * A sign-in whose start URL another browser followed first (SECURITY.md requirement 14), through
 * the whole in-process sign-in at oidc-provider: the test browser that follows the start URL plays
 * the other user's, a later GET of the start URL the user's own. Its tokens are never stored.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { startReceiver } from '../../src/oauth/receiver.js';
import { signInSuite, request } from './signInHarness.js';
import type { Harness } from './signInHarness.js';
import { get, pathOf } from './receiverHttp.js';

const suite = signInSuite();
const { make, servers } = suite;
const KEY_COUNT = async (h: Harness): Promise<number> => (await h.store.list()).length;

/** Resolves once a log line of `h` contains `text`. */
const logged = (h: Harness, text: string): Promise<void> =>
  waitFor(() => h.logs.some((line) => line.text.includes(text)), { what: `the log line '${text}'` });

/**
 * A sign-in whose receiver cannot check the owner of a connection, so that it watches the start
 * URL for `startWatchMs` after the exchange.
 */
const watched = (url: string, startWatchMs: number): Harness =>
  make({
    config: { url },
    deps: {
      startReceiver: (options) =>
        startReceiver({ ...options, peerOwner: () => ({ kind: 'unavailable' }), limits: { startWatchMs } }),
    },
  });

/** GET of the start URL the opener got, as the user's browser sends it. */
const startAgain = (h: Harness) => {
  const url = new URL(h.opened[0]!);
  return get(Number(url.port), pathOf(url.href));
};

describe('a start URL requested again after the redirect', () => {
  it('during the token exchange: the sign-in fails with sign_in_hijacked and nothing is stored', async () => {
    const { as, mcp } = await servers();
    let late: Promise<{ status: number }> | undefined;
    const h: Harness = make({
      config: { url: mcp.url },
      // The token request waits until the user's browser got its answer to the start URL.
      gate: async (_url, form) => {
        if (form?.get('grant_type') !== 'authorization_code') return;
        late = startAgain(h);
        await late;
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_hijacked',
    });
    expect((await late)?.status).toBe(410);
    expect(as.stats().codeGrants).toBe(1);
    expect(await KEY_COUNT(h)).toBe(0);
    expect(h.logs.map((line) => line.text)).not.toContain('the sign-in completed');
  });

  it('while the start URL is watched after the exchange (no owner check): sign_in_hijacked, nothing stored', async () => {
    const { as, mcp } = await servers();
    const h = watched(mcp.url, 3_600_000);
    const signIn = request(suite.net.fetch, mcp.url, h.auth);
    signIn.catch(() => undefined);
    await logged(h, 'unless the start URL gets a second request');
    expect(as.stats().codeGrants).toBe(1);
    expect((await startAgain(h)).status).toBe(410);
    await expect(signIn).rejects.toMatchObject({ code: 'sign_in_hijacked' });
    expect(await KEY_COUNT(h)).toBe(0);
  });

  it('without a second GET, the watched sign-in completes after the watch and is stored', async () => {
    const { mcp } = await servers();
    const h = watched(mcp.url, 300);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(await KEY_COUNT(h)).toBe(1);
    expect(h.logs.map((line) => line.text)).toContain(
      'the bridge uses the sign-in in 0.3 s, unless the start URL gets a second request (SECURITY.md)',
    );
  });
});
