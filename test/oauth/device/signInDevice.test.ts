/**
 * `--grant device-code` in process (src/oauth/device/signIn.ts, docs/sign-in.md#sign-in-device-code):
 * the verification URL as a URL elicitation after `initialized`, or as the one stderr line; a
 * denial; a server without the grant; a refresh that keeps the grant. Against oidc-provider with
 * `features.deviceFlow`; the "user" approves at the verification URL (deviceUser.ts). Each test
 * ends with the secret scan of the harness (signInHarness.ts).
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/oauth/store/memoryStore.js';
import { approveDevice } from '../../fixtures/oauth/deviceUser.js';
import { waitFor } from '../../helpers/waitFor.js';
import { answeringAt, fakeConsent, request, signInSuite } from '../signInHarness.js';
import type { Harness } from '../signInHarness.js';

const suite = signInSuite();
const { make, servers } = suite;

const CODE = '[B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4}';
const LINE = new RegExp(
  `^mcp-bridge-vscode: sign in at (https://127\\.0\\.0\\.1:\\d+/device\\?user_code=${CODE}) with the code (${CODE})$`,
);

const deviceServers = () => servers({ deviceFlow: true, deviceInterval: 1 });

/** The consent port of a client after `initialized`, which the test answers, never browses. */
const readyConsent = (supportsUrl: boolean): ReturnType<typeof fakeConsent> => {
  const consent = fakeConsent(suite.certs.caPem);
  consent.phaseNow = 'ready';
  consent.supportsUrl = supportsUrl;
  consent.browseOnAccept = false;
  return consent;
};

/** Waits for the one sign-in line and approves it as the user would. */
async function approveLine(h: Harness, deny = false): Promise<void> {
  await waitFor(() => h.signInLines.length > 0, { what: 'the sign-in line' });
  const match = LINE.exec(h.signInLines[0] ?? '');
  expect(match).not.toBeNull();
  await approveDevice(match?.[1] ?? '', match?.[2] ?? '', { ca: suite.certs.caPem, deny });
}

const storedOf = async (h: Harness) => {
  const [key] = await h.store.list();
  return key === undefined ? undefined : h.store.read(key);
};

describe('the device grant in process', () => {
  it('after initialized, asks a client with URL elicitation once, with the user code in its text', async () => {
    const { as, mcp } = await deviceServers();
    const h = make({ config: { url: mcp.url, grant: 'device-code' }, consent: readyConsent(true) });
    const reply = request(suite.net.fetch, mcp.url, h.auth);
    await waitFor(() => h.consent.asked.length > 0, { what: 'the URL elicitation' });
    const asked = h.consent.asked[0];
    const userCode = new URL(asked?.url ?? 'https://x.invalid').searchParams.get('user_code') ?? '';
    expect(asked).toEqual({
      url: `${as.issuer}/device?user_code=${userCode}`,
      message: `The upstream server needs a new sign-in. Open the URL, check that it shows the code ${userCode}, and sign in at the authorization server.`,
      elicitationId: 'sign-in-1',
    });
    await approveDevice(asked?.url ?? '', userCode, { ca: suite.certs.caPem });
    expect((await reply).status).toBe(200);
    expect(h.consent.completed).toEqual(['sign-in-1']);
    expect(h.signInLines).toEqual([]);
    expect(h.opened).toEqual([]);
    expect(await storedOf(h)).toMatchObject({ grant: 'device-code', client: { source: 'dynamic' } });
  });

  it('without verification_uri_complete, the elicitation asks the user to enter the code', async () => {
    const { as, mcp } = await servers({ deviceFlow: true, deviceInterval: 1, deviceCompleteUri: false });
    const h = make({ config: { url: mcp.url, grant: 'device-code' }, consent: readyConsent(true) });
    const reply = request(suite.net.fetch, mcp.url, h.auth);
    await waitFor(() => h.consent.asked.length > 0, { what: 'the URL elicitation' });
    const asked = h.consent.asked[0];
    const userCode = new RegExp(`enter the code (${CODE}),`).exec(asked?.message ?? '')?.[1] ?? '';
    expect(asked).toEqual({
      url: `${as.issuer}/device`,
      message: `The upstream server needs a new sign-in. Open the URL, enter the code ${userCode}, and sign in at the authorization server.`,
      elicitationId: 'sign-in-1',
    });
    // The user types the code into the page's input form, then confirms it.
    const end = await approveDevice(asked?.url ?? '', userCode, { ca: suite.certs.caPem });
    expect(end.text).toContain('<p>signed in</p>');
    expect((await reply).status).toBe(200);
    expect(h.consent.completed).toEqual(['sign-in-1']);
  });

  it('after initialized, a client without URL elicitation gets the stderr line, not no_consent', async () => {
    const { mcp } = await deviceServers();
    const h = make({ config: { url: mcp.url, grant: 'device-code' }, consent: readyConsent(false) });
    const reply = request(suite.net.fetch, mcp.url, h.auth);
    await approveLine(h);
    expect((await reply).status).toBe(200);
    expect(h.signInLines).toHaveLength(1);
    expect(h.consent.asked).toEqual([]);
  });

  it('a user who denies ends the grant with sign_in_denied', async () => {
    const { as, mcp } = await deviceServers();
    const h = make({ config: { url: mcp.url, grant: 'device-code' } });
    const reply = request(suite.net.fetch, mcp.url, h.auth);
    await approveLine(h, true);
    await expect(reply).rejects.toMatchObject({ code: 'sign_in_denied', detail: 'access_denied' });
    expect(h.logs.map((line) => line.text)).toContain('The authorization server refused the access.');
    expect(as.tokenRequests().at(-1)).toMatchObject({ status: 400 });
    expect(await storedOf(h)).toBeUndefined();
  });

  it('a server without device_authorization_endpoint fails before any registration', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url, grant: 'device-code' } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail:
        'the authorization server offers no device authorization grant (no device_authorization_endpoint in its metadata)',
    });
    expect(as.stats().registrations).toBe(0);
    expect(h.signInLines).toEqual([]);
  });

  it.each([
    [
      'a user code with a terminal control sequence',
      { user_code: 'ABCD\u001b[2J', verification_uri: 'https://127.0.0.1/device' },
      'the user code is not printable text of at most 64 characters',
    ],
    [
      'an http verification URL of another host',
      { user_code: 'ABCD-EFGH', verification_uri: 'http://evil.example/device' },
      'a verification URL is not valid (it is not an https URL, and http is allowed only for a loopback host)',
    ],
  ])('%s is never shown: sign_in_invalid_url', async (_name, answer, detail) => {
    const { mcp } = await deviceServers();
    const fetch = answeringAt(suite.net.fetch, '/device/auth', 200, {
      device_code: 'device-code-secret-5e1f',
      expires_in: 600,
      ...answer,
    });
    const h = make({ config: { url: mcp.url, grant: 'device-code' }, deps: { fetch } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_invalid_url',
      detail,
    });
    expect(h.signInLines).toEqual([]);
    h.scan(['device-code-secret-5e1f']);
  });

  it('a device sign-in refreshes as any sign-in does, and keeps its grant', async () => {
    const { as, mcp } = await deviceServers();
    const store = createMemoryStore();
    const h = make({ config: { url: mcp.url, grant: 'device-code' }, store });
    const first = request(suite.net.fetch, mcp.url, h.auth);
    await approveLine(h);
    expect((await first).status).toBe(200);
    as.revokeAccessTokens();
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.stats().refreshGrants).toBe(1);
    expect(h.signInLines).toHaveLength(1);
    expect(await storedOf(h)).toMatchObject({ grant: 'device-code' });
  });
});
