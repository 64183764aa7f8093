/**
 * The interactive part (docs/sign-in.md#sign-in-consent, docs/errors.md#errors-sign-in, docs/sign-in.md#sign-in-sandbox): the URL elicitation after `initialized`
 * (accept, decline and its cooldown, cancel, no_consent, a cancelled request), the time limit,
 * --no-browser, the sandbox rule, a start URL used twice, and a resource metadata document of
 * another resource (no token is ever sent).
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { createMemoryStore } from '../../src/oauth/store/memoryStore.js';
import { signInSuite, fakeConsent, post, request } from './signInHarness.js';
import type { Harness } from './signInHarness.js';

const suite = signInSuite();
const { make, servers } = suite;

const ready = (): ReturnType<typeof fakeConsent> => {
  const consent = fakeConsent(suite.certs.caPem);
  consent.phaseNow = 'ready';
  return consent;
};

const texts = (h: Harness): string[] => h.logs.map((l) => l.text);

describe('after initialized: the URL elicitation (docs/sign-in.md#sign-in-consent)', () => {
  it('asks the client with the authorization URL, waits for the redirect, then completes', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url }, consent: ready() });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.opened).toEqual([]);
    expect(h.consent.asked).toEqual([
      {
        url: h.signInLines[0]?.replace('mcp-bridge-vscode: sign in at ', ''),
        message:
          'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.',
        elicitationId: 'sign-in-1',
      },
    ]);
    expect(h.consent.completed).toEqual(['sign-in-1']);
    expect(as.stats().codeGrants).toBe(1);
    expectNoSecrets({ lines: [], stderr: [...texts(h), ...h.signInLines] }, [
      ...h.sentSecrets,
      h.auth.header()?.slice(7) ?? 'none',
    ]);
  });

  it('a decline fails with declined, then asks nothing for 60 s (cooldown)', async () => {
    const { as, mcp } = await servers();
    let clock = 1_000_000;
    const h = make({ config: { url: mcp.url }, consent: ready(), now: () => clock });
    h.consent.answer = 'decline';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'declined',
    });
    expect(h.consent.completed).toEqual([]);
    expect(texts(h)).toContain('The user declined the sign-in.');

    clock += 59_000;
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'cooldown',
    });
    expect(h.consent.asked).toHaveLength(1);
    expect(h.signInLines).toHaveLength(1);

    clock += 2_000;
    h.consent.answer = 'accept';
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.consent.asked).toHaveLength(2);
    expect(as.stats().codeGrants).toBe(1);
  });

  it('a dismissed question (cancel) fails with declined, then asks nothing for 60 s (cooldown)', async () => {
    const { as, mcp } = await servers();
    let clock = 1_000_000;
    const h = make({ config: { url: mcp.url }, consent: ready(), now: () => clock });
    h.consent.answer = 'cancel';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'declined',
    });
    expect(h.consent.completed).toEqual([]);

    clock += 59_000;
    h.consent.answer = 'accept';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'cooldown',
    });
    expect(texts(h)).toContain(
      'A sign-in through the client did not complete a short time ago, thus the bridge does not ask again yet.',
    );
    expect(h.consent.asked).toHaveLength(1);
    expect(h.signInLines).toHaveLength(1);

    clock += 2_000;
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.consent.asked).toHaveLength(2);
    expect(as.stats().codeGrants).toBe(1);
  });

  it('a client without URL elicitation: no_consent, no line, no browser, no request', async () => {
    const { as, mcp } = await servers();
    const consent = ready();
    consent.supportsUrl = false;
    const h = make({ config: { url: mcp.url }, consent });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'no_consent',
    });
    expect(h.signInLines).toEqual([]);
    expect(h.opened).toEqual([]);
    expect(h.consent.asked).toEqual([]);
    expect(h.fetched).toEqual([]);
    expect(as.stats().registrations).toBe(0);
  });

  it('a cancelled request stops the question and the sign-in, without a cooldown', async () => {
    const { mcp } = await servers();
    const h = make({ config: { url: mcp.url }, consent: ready() });
    h.consent.answer = 'hang';
    const first = await post(suite.net.fetch, mcp.url, h.auth);
    const controller = new AbortController();
    const pending = h.auth.challenge({
      status: 401,
      wwwAuthenticate: first.wwwAuthenticate,
      method: 'tools/list',
      signal: controller.signal,
    });
    await waitFor(() => h.consent.asked.length > 0, { what: 'the consent question' });
    controller.abort(new Error('cancelled by the client'));
    await expect(pending).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the request stopped before the sign-in completed',
    });
    expect(texts(h)).toContain('The request stopped before the sign-in completed.');
    h.consent.answer = 'accept';
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.consent.asked).toHaveLength(2);
  });
});

describe('after initialized: no answer', () => {
  it('stops the question after --sign-in-timeout with sign_in_timeout', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url, signInTimeoutMs: 300 }, consent: ready() });
    h.consent.answer = 'hang';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_timeout',
      detail: '300 ms',
    });
    expect(texts(h)).toEqual(
      expect.arrayContaining([
        'the client did not answer the URL elicitation of the sign-in in 300 ms',
        'The sign-in did not complete in 300 ms.',
      ]),
    );
    expect(h.consent.completed).toEqual([]);
    expect(as.stats().authorizationRequests).toBe(0);
  });
});

describe('after initialized: accepted, but no redirect', () => {
  it('times out without blaming the client, and still completes the accepted elicitation', async () => {
    const { mcp } = await servers();
    const h = make({ config: { url: mcp.url, signInTimeoutMs: 300 }, consent: ready() });
    h.consent.browseOnAccept = false;
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_timeout',
      detail: '300 ms',
    });
    expect(texts(h)).toContain('The sign-in did not complete in 300 ms.');
    expect(texts(h).filter((text) => text.includes('did not answer'))).toEqual([]);
    // docs/input-rounds.md#input-elicitation-complete: once per accepted URL, also when the sign-in fails.
    expect(h.consent.completed).toEqual(['sign-in-1']);
  });
});

describe('after initialized: accepted, then failed (docs/security.md#security-4: cooldown after a failed client sign-in)', () => {
  it('a refusal at the server after the accept starts the 60 s cooldown: no new question at once', async () => {
    const { as, mcp } = await servers();
    as.setDeny(true);
    let clock = 5_000_000;
    const h = make({ config: { url: mcp.url }, consent: ready(), now: () => clock });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({ code: 'sign_in_denied' });
    expect(h.consent.completed).toEqual(['sign-in-1']);

    clock += 59_000;
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'cooldown',
    });
    expect(h.consent.asked).toHaveLength(1);
    expect(h.signInLines).toHaveLength(1);
    expect(texts(h)).toContain(
      'A sign-in through the client did not complete a short time ago, thus the bridge does not ask again yet.',
    );

    clock += 2_000;
    as.setDeny(false);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.consent.asked).toHaveLength(2);
    expect(as.stats().codeGrants).toBe(1);
  });

  it('the time limit after an accept starts the cooldown too', async () => {
    const { mcp } = await servers();
    let clock = 5_000_000;
    const h = make({ config: { url: mcp.url, signInTimeoutMs: 300 }, consent: ready(), now: () => clock });
    h.consent.browseOnAccept = false;
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_timeout',
    });
    clock += 1_000;
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'cooldown',
    });
    expect(h.consent.asked).toHaveLength(1);
  });

  it('a request cancelled after the accept starts no cooldown (§6.7: a client cancel)', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url }, consent: ready() });
    h.consent.browseOnAccept = false;
    const first = await post(suite.net.fetch, mcp.url, h.auth);
    const controller = new AbortController();
    const pending = h.auth.challenge({
      status: 401,
      wwwAuthenticate: first.wwwAuthenticate,
      method: 'tools/list',
      signal: controller.signal,
    });
    await waitFor(() => h.consent.asked.length > 0, { what: 'the consent question' });
    controller.abort(new Error('cancelled by the client'));
    await expect(pending).rejects.toMatchObject({ code: 'sign_in_failed' });
    h.consent.browseOnAccept = true;
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.consent.asked).toHaveLength(2);
    expect(as.stats().codeGrants).toBe(1);
  });
});

describe('after initialized: a client that goes away', () => {
  it('passes the error of the question on, logs it, and starts no cooldown', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url }, consent: ready() });
    h.consent.answer = 'reject';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'closed',
      detail: 'the client closed the connection before the sign-in completed',
    });
    expect(texts(h)).toContain('The client closed the connection before the sign-in completed.');
    expect(h.consent.completed).toEqual([]);
    h.consent.answer = 'accept';
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(as.stats().codeGrants).toBe(1);
  });
});

describe('before initialized: the browser', () => {
  it('stops after --sign-in-timeout with sign_in_timeout, and releases the port', async () => {
    const { mcp } = await servers();
    const h = make({ config: { url: mcp.url, signInTimeoutMs: 300 } });
    h.browserMode = 'none';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_timeout',
      detail: '300 ms',
    });
    expect(texts(h)).toContain('The sign-in did not complete in 300 ms.');
    expect(h.opened).toHaveLength(1);
    const startUrl = h.opened[0] ?? '';
    await expect(fetch(startUrl)).rejects.toThrow(); // the receiver is closed
  });

  it('with --no-browser writes the line, opens nothing, and takes the redirect of the URL it shows', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url, noBrowser: true } });
    const first = await post(suite.net.fetch, mcp.url, h.auth);
    const pending = h.auth.challenge({
      status: 401,
      wwwAuthenticate: first.wwwAuthenticate,
      method: 'tools/list',
      signal: new AbortController().signal,
    });
    await waitFor(() => h.signInLines.length > 0, { what: 'the sign-in line' });
    const shown = (h.signInLines[0] ?? '').replace('mcp-bridge-vscode: sign in at ', '');
    await browse(shown, { ca: suite.certs.caPem });
    await pending;
    expect(h.opened).toEqual([]);
    expect(texts(h).filter((text) => text.includes('browser'))).toEqual([]);
    expect(as.stats().codeGrants).toBe(1);
    expect((await post(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
  });

  it('a start URL opened twice before the redirect stops the sign-in (sign_in_start_reused)', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url } });
    h.browserMode = 'twice';
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_start_reused',
    });
    expect(as.stats().codeGrants).toBe(0);
  });

  it('access_denied at the server is sign_in_denied', async () => {
    const { as, mcp } = await servers();
    as.setDeny(true);
    const h = make({ config: { url: mcp.url } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_denied',
      detail: 'access_denied',
    });
  });
});

describe('an authorization URL that is not valid (docs/sign-in.md#sign-in-authorization-url)', () => {
  it('is neither written nor opened: sign_in_invalid_url', async () => {
    const { as, mcp } = await servers();
    // The server's metadata names an authorization endpoint longer than the 8 KiB of §6.5.
    const h = make({
      config: { url: mcp.url },
      deps: {
        fetch: async (input, init) => {
          const response = await suite.net.fetch(input, init);
          const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
          if (!url.includes('/.well-known/oauth-authorization-server')) return response;
          const body = (await response.json()) as Record<string, unknown>;
          body['authorization_endpoint'] = `${String(body['authorization_endpoint'])}?x=${'a'.repeat(9000)}`;
          return new Response(JSON.stringify(body), {
            status: 200,
            headers: { 'content-type': 'application/json' },
          });
        },
      },
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_invalid_url',
    });
    expect(h.signInLines).toEqual([]);
    expect(h.opened).toEqual([]);
    expect(texts(h)).toContain(
      'The authorization server sent an authorization URL that is not valid. The bridge did not open it.',
    );
    expect(as.stats().authorizationRequests).toBe(0);
  });
});

describe('the sandbox rule (docs/sign-in.md#sign-in-sandbox)', () => {
  it('fails at once without a usable stored token: no request, no line, no browser', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url, sandbox: true } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({ code: 'sandbox' });
    expect(h.fetched).toEqual([]);
    expect(h.signInLines).toEqual([]);
    expect(h.opened).toEqual([]);
    expect(as.stats()).toEqual({
      authorizationRequests: 0,
      codeGrants: 0,
      refreshGrants: 0,
      registrations: 0,
    });
  });

  it('uses a usable stored token in the sandbox', async () => {
    const { mcp } = await servers();
    const store = createMemoryStore();
    const outside = make({ config: { url: mcp.url }, store });
    expect((await request(suite.net.fetch, mcp.url, outside.auth)).status).toBe(200);
    const inside = make({ config: { url: mcp.url, sandbox: true }, store });
    expect((await request(suite.net.fetch, mcp.url, inside.auth)).status).toBe(200);
    expect(inside.fetched).toEqual([]);
  });
});

describe('protected resource metadata of another resource (RFC 9728 §3.3)', () => {
  it('stops the sign-in: nothing reaches the authorization server, no token is sent', async () => {
    const { as, mcp } = await servers({}, { prmResource: 'https://127.0.0.1:1/elsewhere' });
    const h = make({ config: { url: mcp.url } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the protected resource metadata names another resource than the URL of the server',
    });
    expect(as.stats()).toEqual({
      authorizationRequests: 0,
      codeGrants: 0,
      refreshGrants: 0,
      registrations: 0,
    });
    expect(h.fetched).toEqual([mcp.resourceMetadataUrl]);
    expect(h.auth.header()).toBeUndefined();
    expect(mcp.requests().filter((r) => r.bearer)).toEqual([]);
  });
});

describe('after initialized: a client without URL elicitation where the profile opens the browser (mcp-bridge)', () => {
  const noUrl = (): ReturnType<typeof fakeConsent> => {
    const consent = ready();
    consent.supportsUrl = false;
    return consent;
  };

  it('opens the browser with the one-time start URL, asks nothing, and completes', async () => {
    const { as, mcp } = await servers();
    const h = make({ config: { url: mcp.url, browserWithoutUrlElicitation: true }, consent: noUrl() });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.opened).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/start\/[A-Za-z0-9_-]{43}$/),
    ]);
    expect(h.signInLines).toHaveLength(1);
    expect(h.consent.asked).toEqual([]);
    expect(h.consent.completed).toEqual([]);
    expect(as.stats().codeGrants).toBe(1);
  });

  it('a client with URL elicitation is still asked', async () => {
    const { mcp } = await servers();
    const h = make({ config: { url: mcp.url, browserWithoutUrlElicitation: true }, consent: ready() });
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.opened).toEqual([]);
    expect(h.consent.asked).toHaveLength(1);
  });

  it('a failed sign-in in the browser starts the 60 s cooldown: no new browser at once', async () => {
    const { as, mcp } = await servers();
    as.setDeny(true);
    let clock = 7_000_000;
    const h = make({
      config: { url: mcp.url, browserWithoutUrlElicitation: true },
      consent: noUrl(),
      now: () => clock,
    });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({ code: 'sign_in_denied' });
    expect(h.opened).toHaveLength(1);

    clock += 59_000;
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({
      code: 'reauthorization_required',
      detail: 'cooldown',
    });
    expect(h.opened).toHaveLength(1);
    expect(h.signInLines).toHaveLength(1);
    expect(texts(h)).toContain(
      'A sign-in in the browser did not complete a short time ago, thus the bridge does not open it again yet.',
    );

    clock += 2_000;
    as.setDeny(false);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.opened).toHaveLength(2);
    expect(as.stats().codeGrants).toBe(1);
  });

  it('before initialized a failed sign-in starts no cooldown (each initialize may sign in)', async () => {
    const { as, mcp } = await servers();
    as.setDeny(true);
    const h = make({ config: { url: mcp.url, browserWithoutUrlElicitation: true } });
    await expect(request(suite.net.fetch, mcp.url, h.auth)).rejects.toMatchObject({ code: 'sign_in_denied' });
    as.setDeny(false);
    expect((await request(suite.net.fetch, mcp.url, h.auth)).status).toBe(200);
    expect(h.opened).toHaveLength(2);
  });
});
