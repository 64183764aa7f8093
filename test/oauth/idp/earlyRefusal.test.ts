/**
 * The early refusals of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag-early): without
 * `--id-token-file` the ID token may need a browser sign-in at the IdP, so the sandbox rule and
 * the consent rules of the browser sign-in (docs/sign-in.md#sign-in-sandbox,
 * docs/sign-in.md#sign-in-consent) fail the request at once, before any request (no metadata, no
 * IdP, no sign-in line, no browser), unless the stored IdP session gives an ID token without a
 * sign-in (a fresh ID token, or a refresh token never sent without an answer); with
 * `--id-token-file` nothing is refused early. In process: createUpstreamAuth (signInHarness.ts)
 * in front of oidc-provider, which takes the ID-JAG of the hand-written IdP (handIdp.ts with
 * `exchange`) in its jwt-bearer grant. The errors are checked as the frames the client gets.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isBridgeError } from '../../../src/protocol/bridgeError.js';
import { bridgeErrorFrame } from '../../../src/protocol/errors.js';
import { markedForRefresh } from '../../../src/oauth/refreshMark.js';
import { idpSessionKey } from '../../../src/oauth/store/identity.js';
import { createMemoryStore } from '../../../src/oauth/store/memoryStore.js';
import type { TokenStore } from '../../../src/oauth/store/types.js';
import { xaaClient } from '../e2eGrantSupport.js';
import type { AuthServer } from '../../fixtures/oauth/authServer.js';
import { startHandIdp } from '../../fixtures/oauth/handIdp.js';
import type { HandIdp } from '../../fixtures/oauth/handIdp.js';
import { platformKey } from '../../fixtures/oauth/jwtAssertion.js';
import type { ProtectedMcp } from '../../fixtures/oauth/protectedMcp.js';
import { fakeConsent, request, signInSuite } from '../signInHarness.js';
import type { FakeConsent, Harness, HarnessOptions } from '../signInHarness.js';

const suite = signInSuite();

const AS_SECRET = 'xaa-secret-early-0b4d1e';
const IDP_SECRET = 'idp-secret-early-9f27c3';
const SANDBOX = {
  code: -32603,
  message:
    'The upstream server needs a sign-in, but the bridge runs in a sandbox that allows no sign-in. Sign in once outside the sandbox, or turn the sandbox off for this server.',
  data: { cause: 'sandbox' },
};
const REAUTHORIZATION =
  'The upstream server needs a new sign-in, and the client did not open the URL of the sign-in. Accept the sign-in request of the server, or restart the server to sign in again.';
const NOTHING_AT_IDP = {
  authorizationRequests: 0,
  codeGrants: 0,
  refreshGrants: 0,
  revocations: [],
  exchanges: {},
};

interface World {
  readonly idp: HandIdp;
  readonly as: AuthServer;
  readonly a: ProtectedMcp;
  readonly b: ProtectedMcp;
}

/** The IdP, one authorization server that trusts its ID-JAGs, and two MCP servers of it. */
async function world(): Promise<World> {
  const jagKey = platformKey();
  const idp = await startHandIdp({ clientId: 'idp-client', clientSecret: IDP_SECRET, exchange: { jagKey } });
  suite.defer(() => idp.close());
  const { as, mcp: a } = await suite.servers({
    dynamicRegistration: false,
    jwtBearer: { publicKeyPem: jagKey.publicKeyPem },
    clients: [xaaClient(AS_SECRET)],
  });
  const b = await suite.mcpFor(as);
  idp.allowResource(a.url);
  idp.allowResource(b.url);
  return { idp, as, a, b };
}

interface Start {
  readonly sandbox?: boolean;
  readonly consent?: FakeConsent;
  readonly store?: TokenStore;
  readonly idTokenFile?: string;
  readonly now?: () => number;
}

/** A sign-in of `--grant id-jag` for `mcp`; without `idTokenFile` the ID token comes from the IdP session. */
function idJag(w: World, mcp: ProtectedMcp, start: Start = {}): Harness {
  const config: HarnessOptions['config'] = {
    url: mcp.url,
    sandbox: start.sandbox ?? false,
    grant: 'id-jag',
    clientId: 'xaa-client',
    clientIssuer: w.as.issuer,
    clientSecret: AS_SECRET,
    idp: {
      issuer: w.idp.issuer,
      clientId: 'idp-client',
      clientSecret: IDP_SECRET,
      ...(start.idTokenFile === undefined ? {} : { idTokenFile: start.idTokenFile }),
    },
  };
  return suite.make({
    config,
    ...(start.consent === undefined ? {} : { consent: start.consent }),
    ...(start.store === undefined ? {} : { store: start.store }),
    ...(start.now === undefined ? {} : { now: start.now }),
  });
}

/** The error frame the client gets for the request (id 1) that the sign-in failed. */
async function refusedFrame(h: Harness, mcp: ProtectedMcp): Promise<unknown> {
  const error = await request(suite.net.fetch, mcp.url, h.auth).then(
    () => expect.fail('the request should have failed'),
    (failure: unknown) => failure,
  );
  if (!isBridgeError(error)) throw error;
  return bridgeErrorFrame(1, error.code, error.detail);
}

/** Nothing happened but the refused request: no request of the sign-in, no line, no browser. */
function expectNothingSent(w: World, h: Harness): void {
  expect(h.fetched).toEqual([]);
  expect(h.signInLines).toEqual([]);
  expect(h.opened).toEqual([]);
  expect(w.idp.stats()).toEqual(NOTHING_AT_IDP);
  expect(w.as.tokenRequests()).toEqual([]);
}

const ready = (supportsUrl: boolean): FakeConsent => {
  const consent = fakeConsent(suite.certs.caPem);
  consent.phaseNow = 'ready';
  consent.supportsUrl = supportsUrl;
  return consent;
};

/** A first bridge outside the sandbox signs in at the IdP (the browser follows) for server a. */
async function signedInSession(w: World): Promise<TokenStore> {
  const store = createMemoryStore();
  expect((await request(suite.net.fetch, w.a.url, idJag(w, w.a, { store }).auth)).status).toBe(200);
  expect(w.idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1 });
  return store;
}

const TWO_HOURS = 2 * 3600 * 1000;

describe('--grant id-jag without --id-token-file: the early refusals of the browser sign-in', () => {
  it('the sandbox without an IdP session: sandbox at once, no request at all', async () => {
    const w = await world();
    const h = idJag(w, w.a, { sandbox: true });
    expect(await refusedFrame(h, w.a)).toEqual({ jsonrpc: '2.0', id: 1, error: SANDBOX });
    expectNothingSent(w, h);
  });

  it('after initialized, a client without URL elicitation (mcp-bridge-vscode): no_consent at once, no request', async () => {
    const w = await world();
    const h = idJag(w, w.a, { consent: ready(false) });
    expect(await refusedFrame(h, w.a)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: REAUTHORIZATION,
        data: { cause: 'reauthorization_required', detail: 'no_consent' },
      },
    });
    expectNothingSent(w, h);
    expect(h.consent.asked).toEqual([]);
  });

  it('a declined sign-in at the IdP: the next request fails at once with cooldown, no request', async () => {
    const w = await world();
    const consent = ready(true);
    consent.answer = 'decline';
    const h = idJag(w, w.a, { consent });
    expect(await refusedFrame(h, w.a)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: REAUTHORIZATION,
        data: { cause: 'reauthorization_required', detail: 'declined' },
      },
    });
    expect(h.consent.asked).toHaveLength(1);
    const fetched = h.fetched.length;
    expect(await refusedFrame(h, w.a)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: REAUTHORIZATION,
        data: { cause: 'reauthorization_required', detail: 'cooldown' },
      },
    });
    expect(h.fetched.slice(fetched)).toEqual([]);
    expect(h.consent.asked).toHaveLength(1);
    expect(w.idp.stats()).toEqual(NOTHING_AT_IDP);
  });

  it('a fresh IdP session skips them: in the sandbox another server gets its token from it', async () => {
    const w = await world();
    const store = await signedInSession(w);
    const h = idJag(w, w.b, { sandbox: true, store });
    expect((await request(suite.net.fetch, w.b.url, h.auth)).status).toBe(200);
    expect(h.signInLines).toEqual([]);
    expect(w.idp.stats()).toEqual({
      authorizationRequests: 1,
      codeGrants: 1,
      refreshGrants: 0,
      revocations: [],
      exchanges: { [w.a.url]: 1, [w.b.url]: 1 },
    });
  });

  it('an IdP session with an expired ID token and a refresh token skips them: the refresh runs in the sandbox', async () => {
    const w = await world();
    const store = await signedInSession(w);
    const later = (): number => Date.now() + TWO_HOURS;
    const h = idJag(w, w.b, { sandbox: true, store, now: later });
    expect((await request(suite.net.fetch, w.b.url, h.auth)).status).toBe(200);
    expect(h.signInLines).toEqual([]);
    expect(w.idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 1 });
  });

  it('an IdP session whose refresh got no answer does not skip them: sandbox, no request', async () => {
    const w = await world();
    const store = await signedInSession(w);
    const key = idpSessionKey({
      bridgeName: 'mcp-bridge-vscode',
      account: 'default',
      issuer: w.idp.issuer,
      clientId: 'idp-client',
    });
    const session = await store.read(key);
    if (session?.refreshToken === undefined) throw new Error('the IdP session has no refresh token');
    await store.write(markedForRefresh({ ...session, refreshToken: session.refreshToken }));
    const h = idJag(w, w.b, { sandbox: true, store, now: () => Date.now() + TWO_HOURS });
    expect(await refusedFrame(h, w.b)).toEqual({ jsonrpc: '2.0', id: 1, error: SANDBOX });
    expect(h.fetched).toEqual([]);
    expect(w.idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 0 });
  });
});

describe('--grant id-jag with --id-token-file: nothing is refused early', () => {
  it('in the sandbox and for a client without URL elicitation, the exchange runs', async () => {
    const w = await world();
    const dir = mkdtempSync(join(tmpdir(), 'idjag-early-'));
    suite.defer(() => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
    const file = join(dir, 'id-token.jwt');
    writeFileSync(file, w.idp.idToken(), { mode: 0o600 });
    chmodSync(file, 0o600);
    const h = idJag(w, w.a, { sandbox: true, consent: ready(false), idTokenFile: file });
    expect((await request(suite.net.fetch, w.a.url, h.auth)).status).toBe(200);
    expect(w.idp.stats()).toEqual({ ...NOTHING_AT_IDP, exchanges: { [w.a.url]: 1 } });
    expect(h.signInLines).toEqual([]);
  });
});
