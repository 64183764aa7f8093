/**
 * One sign-in at the IdP for two bridge processes of two servers
 * (docs/sign-in.md#sign-in-idp-session, docs/sign-in.md#sign-in-id-jag): the BUILT `mcp-bridge
 * --grant id-jag` without `--id-token-file`, twice, each under an SDK 1.x Client that declares no
 * elicitation, in front of its own protected MCP server and authorization server (oidc-provider,
 * which takes the IdP's ID-JAG in its jwt-bearer grant). One hand-written IdP
 * (test/fixtures/oauth/handIdp.ts with `exchange`) does both the OpenID Connect browser sign-in,
 * which the test browser of `$BROWSER` approves, and the token exchange. Both bridges share one
 * encrypted token directory and its lock: the IdP sees one authorization request and one code in
 * all, and one exchange per server, each for that server's authorization server and resource;
 * each server sees only the token of its own authorization server. Every run ends with the secret
 * scan of both bridges' stdout and stderr and of the token directory. In the sandbox
 * (docs/sign-in.md#sign-in-id-jag-early), a bridge without an IdP session fails `initialize` at
 * once, and one started after another bridge signed in at the IdP gets its token. Needs
 * `npm run build`.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { waitFor } from '../helpers/waitFor.js';
import { JWT_BEARER, startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import { startHandIdp } from '../fixtures/oauth/handIdp.js';
import type { HandIdp } from '../fixtures/oauth/handIdp.js';
import { ID_JAG_TYPE, ID_TOKEN_TYPE, TOKEN_EXCHANGE } from '../fixtures/oauth/idJagExchange.js';
import { platformKey } from '../fixtures/oauth/jwtAssertion.js';
import type { PlatformKey } from '../fixtures/oauth/jwtAssertion.js';
import { startProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import type { ProtectedMcp, TokenIssuer } from '../fixtures/oauth/protectedMcp.js';
import { expectDirectoryClean, grantRuns, xaaClient } from './e2eGrantSupport.js';
import { runPlace } from './e2eSupport.js';
import type { BridgeRun, RunOptions, RunPlace } from './e2eSupport.js';
import { e2eSuite, startFileStoreBridge } from './e2eSuite.js';

const suite = e2eSuite();
const { closers } = suite;
const { refusedStart } = grantRuns(suite);

const IDP_SECRET = 'idp-secret-7c15e0a94b';
const LOCK_WAIT = 'waits for the sign-in of another bridge process';
const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

/** One MCP server and its authorization server; `seen` is every token the server was sent. */
interface Server {
  readonly as: AuthServer;
  readonly mcp: ProtectedMcp;
  readonly secret: string;
  readonly seen: string[];
}

interface World {
  readonly idp: HandIdp;
  readonly a: Server;
  readonly b: Server;
  /** The places of the two bridges: their own redirect ports and browser logs, one state folder. */
  readonly first: RunPlace;
  readonly second: RunPlace;
}

/** An authorization server that trusts the IdP's ID-JAGs, and its MCP server, which records each token it gets. */
async function server(jagKey: PlatformKey, secret: string): Promise<Server> {
  const { certs } = suite.world;
  const as = await startAuthServer({
    tls: certs,
    caPem: certs.caPem,
    dynamicRegistration: false,
    jwtBearer: { publicKeyPem: jagKey.publicKeyPem },
    clients: [xaaClient(secret)],
  });
  closers.push(() => as.close());
  const seen: string[] = [];
  const recording: TokenIssuer = {
    issuer: as.issuer,
    verify: (token) => {
      seen.push(token);
      return as.verify(token);
    },
    allowResource: (url) => as.allowResource(url),
  };
  const mcp = await startProtectedMcp({ tls: certs, authServer: recording });
  closers.push(() => mcp.close());
  return { as, mcp, secret, seen };
}

async function world(): Promise<World> {
  const jagKey = platformKey();
  const idp = await startHandIdp({ clientId: 'idp-client', clientSecret: IDP_SECRET, exchange: { jagKey } });
  closers.push(() => idp.close());
  const a = await server(jagKey, 'xaa-secret-a-5e81c07d');
  const b = await server(jagKey, 'xaa-secret-b-c3d97a21');
  idp.allowResource(a.mcp.url);
  idp.allowResource(b.mcp.url);
  const first = await runPlace(suite.world, 'idjag2-');
  const second = { ...(await runPlace(suite.world, 'idjag2-')), stateDir: first.stateDir };
  return { idp, a, b, first, second };
}

/** The built `mcp-bridge --grant id-jag` for `s`, no --id-token-file; `stderr` gets its lines as they come. */
function options(
  w: World,
  s: Server,
  stderr: string[] = [],
  env: Record<string, string> = {},
): Partial<RunOptions> {
  return {
    executable: GENERIC_BRIDGE,
    urlElicitation: 'none',
    args: [
      '--grant',
      'id-jag',
      '--client-id',
      'xaa-client',
      '--client-issuer',
      s.as.issuer,
      '--idp-issuer',
      w.idp.issuer,
      '--idp-client-id',
      'idp-client',
    ],
    env: { MCP_BRIDGE_CLIENT_SECRET: s.secret, MCP_BRIDGE_IDP_CLIENT_SECRET: IDP_SECRET, ...env },
    stderrLine: (line) => void stderr.push(line),
  };
}

const bridge = (w: World, s: Server, p: RunPlace, stderr: string[] = []): Promise<BridgeRun> =>
  startFileStoreBridge(suite, s.as, s.mcp, p, options(w, s, stderr));

const exchangeOf = (s: Server) => ({
  grantType: TOKEN_EXCHANGE,
  requestedTokenType: ID_JAG_TYPE,
  subjectTokenType: ID_TOKEN_TYPE,
  audience: s.as.issuer,
  resource: s.mcp.url,
  clientAuth: 'basic',
  subject: 'user-1',
  status: 200,
});

/** What both cases prove once both bridges answered a tool call. */
function expectOneIdpSignIn(w: World, runs: readonly BridgeRun[]): void {
  const { idp, a, b } = w;
  expect(idp.stats()).toEqual({
    authorizationRequests: 1,
    codeGrants: 1,
    refreshGrants: 0,
    revocations: [],
    exchanges: { [a.mcp.url]: 1, [b.mcp.url]: 1 },
  });
  expect(idp.exchanges()).toHaveLength(2);
  expect(idp.exchanges()).toEqual(expect.arrayContaining([exchangeOf(a), exchangeOf(b)]));
  for (const s of [a, b]) {
    expect(s.as.tokenRequests()).toEqual([
      {
        grantType: JWT_BEARER,
        clientId: 'xaa-client',
        resource: [s.mcp.url],
        scope: 'mcp:read',
        authMethod: 'client_secret_basic',
        status: 200,
      },
    ]);
    expect(s.as.assertionSubjects()).toEqual(['user-1']);
    expect(s.as.stats()).toMatchObject({ authorizationRequests: 0, codeGrants: 0, refreshGrants: 0 });
    expect(
      s.mcp
        .requests()
        .filter((r) => r.rpcMethod === 'tools/call')
        .map((r) => [r.bearer, r.status]),
    ).toEqual([[true, 200]]);
  }
  // One token per server, issued by its own authorization server and not by the other.
  const whose = (s: Server): boolean[][] =>
    [...new Set(s.seen)].map((token) => [
      a.as.issuedSecrets().includes(token),
      b.as.issuedSecrets().includes(token),
    ]);
  expect(whose(a)).toEqual([[true, false]]);
  expect(whose(b)).toEqual([[false, true]]);
  const signInLines = runs.flatMap((run) =>
    run.stderr.filter((line) => line.startsWith(`mcp-bridge: sign in at ${idp.issuer}/authorize?`)),
  );
  expect(signInLines).toHaveLength(1);
  // ID tokens, ID-JAGs, codes, verifiers, the IdP's tokens, every access token and every secret.
  const markers = [
    IDP_SECRET,
    a.secret,
    b.secret,
    ...idp.issuedSecrets(),
    ...a.as.issuedSecrets(),
    ...b.as.issuedSecrets(),
  ];
  for (const run of runs) run.scan(markers);
  expectDirectoryClean(w.first, markers, join(w.first.stateDir, 'mcp-bridge-sdk', 'generic', 'tokens'));
}

describe('--grant id-jag: one IdP sign-in for two bridge processes of two servers', () => {
  it('the second bridge, started later, uses the IdP session of the first: one sign-in, a token per server', async () => {
    const w = await world();
    const first = await bridge(w, w.a, w.first);
    expect(text(await first.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    expect(first.browserLog()).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    const second = await bridge(w, w.b, w.second);
    expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(second.browserLog()).toEqual([]);
    expect(w.idp.exchanges().map((e) => e.resource)).toEqual([w.a.mcp.url, w.b.mcp.url]);
    expect(second.stderr).toContain(
      'mcp-bridge: oauth: info: the bridge obtained a token with the id-jag grant',
    );
    expectOneIdpSignIn(w, [first, second]);
  });

  it('two bridges started at once: one waits at the IdP session lock, one sign-in in all', async () => {
    const w = await world();
    const hold = w.idp.holdAuthorization();
    const lines: string[] = [];
    const starting = Promise.all([bridge(w, w.a, w.first, lines), bridge(w, w.b, w.second, lines)]);
    starting.catch(() => undefined);
    // One bridge is at the IdP's authorization endpoint; the other waits for its sign-in.
    await hold.reached;
    await waitFor(() => lines.some((line) => line.endsWith(LOCK_WAIT)), { what: 'the lock line' });
    hold.release();
    const runs = await starting;
    const [first, second] = runs;
    expect(text(await first.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect([...first.browserLog(), ...second.browserLog()]).toEqual([
      { argc: 1, startUrl: true, mode: 'follow' },
    ]);
    expectOneIdpSignIn(w, runs);
  });

  it('in the sandbox: initialize fails at once without an IdP session, and works with the session of another bridge', async () => {
    const w = await world();
    const sandboxed = options(w, w.b, [], { SANDBOX_RUNTIME: '1' });
    const data = await refusedStart(w.b.as, w.b.mcp, w.second, sandboxed, [IDP_SECRET, w.b.secret]);
    expect(data).toEqual({ cause: 'sandbox', detail: 'server/discover' });
    expect(w.idp.stats()).toEqual({
      authorizationRequests: 0,
      codeGrants: 0,
      refreshGrants: 0,
      revocations: [],
      exchanges: {},
    });
    expect(w.b.as.tokenRequests()).toEqual([]);
    // Only the request that learnt of the sign-in: no metadata of the server, nothing at the IdP.
    expect(w.b.mcp.requests().map(({ path, rpcMethod, status }) => [path, rpcMethod, status])).toEqual([
      ['/mcp', 'server/discover', 401],
    ]);
    const first = await bridge(w, w.a, w.first);
    expect(text(await first.client.callTool({ name: 'echo', arguments: { text: 'a' } }))).toBe('a');
    const second = await startFileStoreBridge(suite, w.b.as, w.b.mcp, w.second, sandboxed);
    expect(text(await second.client.callTool({ name: 'echo', arguments: { text: 'b' } }))).toBe('b');
    expect(second.browserLog()).toEqual([]);
    expectOneIdpSignIn(w, [first, second]);
  });
});
