/**
 * `--grant id-jag` end to end (docs/sign-in.md#sign-in-id-jag): the built bridge under the SDK 1.x
 * Client, a hand-written IdP (test/fixtures/oauth/testIdp.ts) that exchanges the person's ID token
 * for an ID-JAG, and oidc-provider as the MCP server's authorization server, which takes that ID-JAG
 * in its jwt-bearer grant (it trusts the IdP's signing key), with the encrypted file store. No
 * browser and no elicitation ever; a refusal of the IdP ends `initialize` naming its error code,
 * never its description. Every run ends with the secret scan of its stdout and stderr (both client
 * secrets, every ID token and ID-JAG, every token) and of the token directory.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import { JWT_BEARER } from '../fixtures/oauth/authServer.js';
import { platformKey } from '../fixtures/oauth/jwtAssertion.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { movableClock, type MovableClock } from '../fixtures/oauth/movableClock.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import {
  DESCRIPTION_MARKER,
  ID_JAG_TYPE,
  ID_TOKEN_TYPE,
  startTestIdp,
  TOKEN_EXCHANGE,
  type TestIdp,
} from '../fixtures/oauth/testIdp.js';
import { expectDirectoryClean, grantRuns, privateFile, xaaClient } from './e2eGrantSupport.js';
import { runPlace, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';

const suite = e2eSuite();
const { closers } = suite;
const { start, refusedStart } = grantRuns(suite);

const AS_SECRET = 'xaa-secret-91c4e7a02b';
const IDP_SECRET = 'idp-secret-3d8f52b7e1';
const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

interface World {
  readonly as: AuthServer;
  readonly mcp: ProtectedMcp;
  readonly idp: TestIdp;
}

/** The IdP, and the authorization server that trusts its ID-JAGs (`jwtBearer: false`: one that takes none). */
async function world(options: { jwtBearer?: boolean; clock?: MovableClock } = {}): Promise<World> {
  const jagKey = platformKey();
  const idp = await startTestIdp({
    tls: suite.world.certs,
    jagKey,
    clientId: 'idp-client',
    clientSecret: IDP_SECRET,
  });
  closers.push(() => idp.close());
  const { as, mcp } = await startServers(
    suite.world,
    (close) => closers.push(close),
    {
      dynamicRegistration: false,
      ...(options.jwtBearer === false ? {} : { jwtBearer: { publicKeyPem: jagKey.publicKeyPem } }),
      ...(options.clock === undefined ? {} : { accessTokenTtlSeconds: 2, now: options.clock.now }),
      clients: [xaaClient(AS_SECRET)],
    },
    {},
  );
  return { as, mcp, idp };
}

/** A start of the bridge with user-1's ID token in a file that `initialize` refuses; no secret may show. */
async function refusedIdJag(w: World, moreSecrets: readonly string[]) {
  const p = await runPlace(suite.world, 'idjag-');
  const idToken = w.idp.idToken('user-1');
  const file = privateFile(p, 'id-token.jwt', idToken);
  const secrets = [AS_SECRET, IDP_SECRET, idToken, ...moreSecrets];
  const data = await refusedStart(w.as, w.mcp, p, { args: args(w, file), env: ENV }, secrets);
  return { data, p };
}

const args = (w: World, idTokenFile: string): string[] => [
  '--grant',
  'id-jag',
  '--client-id',
  'xaa-client',
  '--client-issuer',
  w.as.issuer,
  '--idp-issuer',
  w.idp.issuer,
  '--idp-client-id',
  'idp-client',
  '--id-token-file',
  idTokenFile,
];

const ENV = { MCP_BRIDGE_CLIENT_SECRET: AS_SECRET, MCP_BRIDGE_IDP_CLIENT_SECRET: IDP_SECRET };

describe('enterprise-managed authorization (--grant id-jag)', () => {
  it('exchanges the ID token at the IdP, then signs in with the ID-JAG: a tool call works, nothing in clear', async () => {
    const w = await world();
    w.idp.allowResource(w.mcp.url);
    const p = await runPlace(suite.world, 'idjag-');
    const idToken = w.idp.idToken('user-1');
    const file = privateFile(p, 'id-token.jwt', idToken);
    const run = await start(w.as, w.mcp, p, { args: args(w, file), env: ENV }, [AS_SECRET, IDP_SECRET]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    expect(w.idp.exchanges()).toEqual([
      {
        grantType: TOKEN_EXCHANGE,
        requestedTokenType: ID_JAG_TYPE,
        subjectTokenType: ID_TOKEN_TYPE,
        audience: w.as.issuer,
        resource: w.mcp.url,
        clientAuth: 'basic',
        subject: 'user-1',
        status: 200,
      },
    ]);
    expect(w.as.tokenRequests()).toEqual([
      {
        grantType: JWT_BEARER,
        clientId: 'xaa-client',
        resource: [w.mcp.url],
        scope: 'mcp:read',
        authMethod: 'client_secret_basic',
        status: 200,
      },
    ]);
    expect(w.as.assertionSubjects()).toEqual(['user-1']);
    expect(w.as.stats()).toMatchObject({ authorizationRequests: 0, codeGrants: 0, refreshGrants: 0 });
    expect(run.browserLog()).toEqual([]);
    expect(run.elicited).toEqual([]);
    run.scan(w.idp.issuedSecrets());
    expectDirectoryClean(p, [AS_SECRET, IDP_SECRET, ...w.idp.issuedSecrets(), ...w.as.issuedSecrets()]);
  });

  it('an expired token repeats the exchange, with the ID token read anew from the file', async () => {
    const clock = movableClock();
    const w = await world({ clock });
    w.idp.allowResource(w.mcp.url);
    const p = await runPlace(suite.world, 'idjag-');
    const file = privateFile(p, 'id-token.jwt', w.idp.idToken('user-1'));
    const run = await start(w.as, w.mcp, p, { args: args(w, file), env: ENV }, [AS_SECRET, IDP_SECRET]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    writeFileSync(file, `${w.idp.idToken('user-2')}\n`);
    clock.move(3_000);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(w.idp.exchanges().map((e) => [e.subject, e.audience, e.resource, e.status])).toEqual([
      ['user-1', w.as.issuer, w.mcp.url, 200],
      ['user-2', w.as.issuer, w.mcp.url, 200],
    ]);
    expect(w.as.assertionSubjects()).toEqual(['user-1', 'user-2']);
    expect(run.browserLog()).toEqual([]);
    run.scan(w.idp.issuedSecrets());
    expectDirectoryClean(p, [...w.idp.issuedSecrets(), ...w.as.issuedSecrets()]);
  });

  it('a denial of the IdP ends initialize naming its error code, never its description, and opens no browser', async () => {
    const w = await world();
    w.idp.allowResource(w.mcp.url);
    w.idp.setDeny('access_denied');
    const { data, p } = await refusedIdJag(w, [DESCRIPTION_MARKER]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the IdP refused the token exchange: access_denied',
    });
    expect(w.idp.exchanges().map((e) => [e.subject, e.status])).toEqual([['user-1', 400]]);
    expect(w.as.tokenRequests()).toEqual([]);
    expect(w.as.stats()).toMatchObject({ authorizationRequests: 0, codeGrants: 0 });
    expect(readBrowserLog(p.browserLog)).toEqual([]);
  });

  it('a resource the IdP does not know ends initialize naming invalid_target', async () => {
    const w = await world();
    const { data } = await refusedIdJag(w, [DESCRIPTION_MARKER]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the IdP refused the token exchange: invalid_target',
    });
    expect(w.idp.exchanges().map((e) => [e.resource, e.status])).toEqual([[w.mcp.url, 400]]);
    expect(w.as.tokenRequests()).toEqual([]);
  });

  it('an authorization server without the jwt-bearer grant fails before the IdP gets the ID token', async () => {
    const w = await world({ jwtBearer: false });
    w.idp.allowResource(w.mcp.url);
    const { data } = await refusedIdJag(w, []);
    expect(data).toEqual({
      cause: 'sign_in_failed',
      detail:
        'the authorization server lists neither urn:ietf:params:oauth:grant-type:jwt-bearer in grant_types_supported nor urn:ietf:params:oauth:grant-profile:id-jag in authorization_grant_profiles_supported',
    });
    expect(w.idp.exchanges()).toEqual([]);
    expect(w.as.tokenRequests()).toEqual([]);
  });

  it('a wrong IdP secret ends initialize naming invalid_client; the AS gets nothing', async () => {
    const w = await world();
    w.idp.allowResource(w.mcp.url);
    const p = await runPlace(suite.world, 'idjag-');
    const idToken = w.idp.idToken('user-1');
    const file = privateFile(p, 'id-token.jwt', idToken);
    const wrong = 'wrong-idp-secret-b81c';
    const env = { ...ENV, MCP_BRIDGE_IDP_CLIENT_SECRET: wrong };
    const data = await refusedStart(w.as, w.mcp, p, { args: args(w, file), env }, [
      AS_SECRET,
      wrong,
      idToken,
      DESCRIPTION_MARKER,
    ]);
    expect(data).toEqual({
      cause: 'sign_in_error',
      detail: 'the IdP refused the token exchange: invalid_client',
    });
    expect(w.as.tokenRequests()).toEqual([]);
  });
});
