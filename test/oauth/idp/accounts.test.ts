/**
 * The IdP session in `status` and `logout --idp` (docs/sign-in.md#sign-in-idp-session,
 * README.md "Logout" and "Status"): a real sign-in at the hand IdP into the file store, a sign-in
 * of a server made from it, and one that is not.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runLogout, type LogoutOptions } from '../../../src/cli/logout.js';
import { runStatus } from '../../../src/cli/status.js';
import { discoverIdp } from '../../../src/oauth/idp/idpMetadata.js';
import { idTokenFromSession } from '../../../src/oauth/idp/session.js';
import { openTokenStore } from '../../../src/oauth/store/openStore.js';
import type { TokenStore } from '../../../src/oauth/store/types.js';
import { idpTestContext } from '../../fixtures/oauth/idpContext.js';
import { startHandIdp } from '../../fixtures/oauth/handIdp.js';
import type { HandIdp } from '../../fixtures/oauth/handIdp.js';
import { expectNoSecrets } from '../../helpers/secretScan.js';
import { KEY_A, makeRecord, recordingLogger, useTokenPlace, type RecordingLogger } from '../storeTestKit.js';

const JAG_ID = 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback|grant=id-jag';
const SERVER_A = 'https://a.example.test/mcp';
const SERVER_B = 'https://b.example.test/mcp';

let dir: string;
let logger: RecordingLogger;
useTokenPlace((place) => ({ dir, logger } = place));
let idp: HandIdp;
beforeEach(async () => {
  idp = await startHandIdp({ clientId: 'idp-client', clientSecret: 'idp-secret-5a1c' });
});
afterEach(() => idp.close());

async function fileStore() {
  const opened = await openTokenStore(
    { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
    recordingLogger(),
  );
  if (!opened.ok) throw new Error(opened.message);
  return opened;
}

/** Signs in at the IdP; stores a sign-in of SERVER_A made from that session, and one of SERVER_B that is not. */
async function seed(): Promise<{ store: TokenStore; idToken: string }> {
  const { store, lock } = await fileStore();
  const { ctx } = idpTestContext({ store, lock, mcpUrl: 'http://127.0.0.1:9/mcp' });
  const settings = { issuer: idp.issuer, clientId: 'idp-client', clientSecret: 'idp-secret-5a1c' };
  const idToken = await idTokenFromSession(ctx, settings, await discoverIdp(ctx, settings));
  await store.write(
    makeRecord({ url: SERVER_A, identity: JAG_ID, grant: 'id-jag', idpIssuer: idp.issuer, savedAt: 2_000 }),
  );
  await store.write(
    makeRecord({ url: SERVER_B, identity: 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback' }),
  );
  return { store, idToken };
}

const environment = () => ({
  env: { MCP_BRIDGE_TOKEN_KEY: KEY_A, MCP_BRIDGE_IDP_CLIENT_SECRET: 'idp-secret-5a1c' },
  directory: dir,
  // The IdP answers; the authorization servers of the two MCP servers are offline.
  fetch: ((input: string | URL | Request, init?: RequestInit) =>
    String(input instanceof Request ? input.url : input).startsWith(idp.issuer)
      ? fetch(input, init)
      : Promise.reject(new Error('offline'))) as typeof fetch,
});

const logoutIdp = (overrides: Partial<LogoutOptions> = {}): LogoutOptions => ({
  all: false,
  idp: idp.issuer,
  account: 'default',
  redirectPort: 41894,
  tokenStore: 'file',
  noRevoke: false,
  logLevel: 'info',
  bridgeName: 'mcp-bridge-vscode',
  ...overrides,
});

describe('status with an IdP session', () => {
  it('lists the IdP session (issuer, account, expiry) and the IdP of the sign-in made from it; never a token', async () => {
    const { idToken } = await seed();
    let out = '';
    const code = await runStatus(
      { tokenStore: 'file', json: true, logLevel: 'info', bridgeName: 'mcp-bridge-vscode' },
      logger,
      environment(),
      { write: (text) => void (out += text) },
    );
    expect(code).toBe(0);
    const json = JSON.parse(out) as Array<Record<string, unknown>>;
    expect(
      json.map((entry) => [entry['kind'], entry['server'] ?? entry['issuer'], entry['idpIssuer']]),
    ).toEqual([
      ['sign-in', SERVER_A, idp.issuer],
      ['sign-in', SERVER_B, null],
      ['idp-session', idp.issuer, undefined],
    ]);
    expect(json[2]).toMatchObject({
      account: 'default',
      store: 'file',
      idTokenExpired: false,
      refreshable: true,
    });
    expect(String(json[2]?.['idTokenExpiresAt'])).toMatch(/^\d{4}-\d\d-\d\dT/);
    let text = '';
    await runStatus(
      { tokenStore: 'file', json: false, logLevel: 'info', bridgeName: 'mcp-bridge-vscode' },
      logger,
      environment(),
      { write: (chunk) => void (text += chunk) },
    );
    expect(text).toContain(`  IdP:           ${idp.issuer}\n`);
    expect(text).toContain(
      `IdP session ${idp.issuer}\n  account:       default\n  store:         file\n  ID token:      expires `,
    );
    expectNoSecrets({ lines: [out, text], stderr: logger.lines }, [...idp.issuedSecrets(), idToken]);
  });

  it('with a URL, lists the IdP session only beside a sign-in made from it', async () => {
    await seed();
    const kinds = async (url: string): Promise<unknown[]> => {
      let out = '';
      await runStatus(
        { url, tokenStore: 'file', json: true, logLevel: 'info', bridgeName: 'mcp-bridge-vscode' },
        logger,
        environment(),
        { write: (chunk) => void (out += chunk) },
      );
      return (JSON.parse(out) as Array<{ kind: string }>).map((entry) => entry.kind);
    };
    expect(await kinds(SERVER_A)).toEqual(['sign-in', 'idp-session']);
    expect(await kinds(SERVER_B)).toEqual(['sign-in']);
  });
});

describe('logout --idp <issuer>', () => {
  it('revokes the IdP tokens, deletes the IdP session and the sign-ins made from it, and keeps the others', async () => {
    const { idToken } = await seed();
    expect(await runLogout(logoutIdp(), logger, environment())).toBe(0);
    // The refresh token first, then the access token (revocation.ts), with the IdP client's secret.
    expect(idp.stats().revocations).toEqual(['refresh_token', 'access_token']);
    expect(logger.lines).toContain(`vscode: info: logout revoked the tokens at ${idp.issuer}`);
    expect(logger.lines).toContain(
      'vscode: info: logout ended the IdP session of the account "default" and deleted 2 stored records of it. The next start signs in at the IdP again',
    );
    const { store, lock } = await fileStore();
    expect((await store.list()).map((key) => key.url)).toEqual([SERVER_B]);
    expectNoSecrets({ lines: [], stderr: logger.lines }, [...idp.issuedSecrets(), idToken]);
    // The session is gone: the next ID token needs a new sign-in at the IdP.
    const { ctx } = idpTestContext({ store, lock, mcpUrl: 'http://127.0.0.1:9/mcp' });
    const settings = { issuer: idp.issuer, clientId: 'idp-client', clientSecret: 'idp-secret-5a1c' };
    expect(await idTokenFromSession(ctx, settings, await discoverIdp(ctx, settings))).not.toBe(idToken);
    expect(idp.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2 });
  });

  it('finds nothing for another account, and deletes nothing', async () => {
    await seed();
    expect(await runLogout(logoutIdp({ account: 'work' }), logger, environment())).toBe(0);
    expect(logger.lines).toEqual([
      'vscode: info: logout found no IdP session of the account "work" for the issuer',
    ]);
    const { store } = await fileStore();
    expect(await store.list()).toHaveLength(3);
    expect(idp.stats().revocations).toEqual([]);
  });
});
