/**
 * The secret scan of everything exported (docs/observability.md#observability-secrets) on the
 * built bridge, with a sign-in in the same run: `mcp-bridge-vscode <url>` with traces and metrics
 * on (http/json, so the exported bytes are text) in front of the protected MCP fixture and
 * oidc-provider with DPoP (test/oauth/e2eSupport.ts). The bridge signs in at `initialize` through
 * the test browser with a pre-registered client and its secret, calls a tool with a marker
 * argument, answers a form with a marker answer in an input round, and refreshes its token after
 * the server forgot the access token; the upstream URL has a key in its query. Then every byte the
 * local collector got is scanned for every token, code, PKCE verifier and client secret of the
 * sign-in, the client's `Authorization` value, each `DPoP` proof, the markers, the authorization URL
 * with its state and challenge, and the MCP URL; and no exported string holds a URL query.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { attributesOf, closeCollectors, startCollector } from '../helpers/otlpCollector.js';
import type { Collector } from '../helpers/otlpCollector.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { waitFor } from '../helpers/waitFor.js';
import { runPlace, startBridge, startServers } from '../oauth/e2eSupport.js';
import { e2eSuite } from '../oauth/e2eSuite.js';

const suite = e2eSuite({ requireMarkers: true });
const { closers, runs } = suite;
afterEach(closeCollectors);

const CLIENT_ID = 'bridge-traced';
const SECRET = 'client-secret-5a17e3c2';
const ARGUMENT = 'argument-value-3c9e71';
const ANSWER = 'form-answer-b84d20';
const QUERY_KEY = 'query-key-e0f4a9';
const SERVER = 2;
const CLIENT = 3;

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

/** Every string in a JSON value: names, keys and values alike. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, inner]) => [key, ...stringsOf(inner)]);
  return [];
}

/** Every POST the collector got, as text (all of them are http/json here). */
const exported = (collector: Collector): string[] =>
  collector.posts.map((post) => post.body.toString('utf8'));

interface SignedInRun {
  readonly issuer: string;
  /** Everything that must not be exported. */
  readonly markers: readonly string[];
}

/**
 * One bridge run that exports to `collector`: the sign-in at initialize, a call with the marker
 * argument, a call with one input round answered with the marker answer, a refresh; then its end.
 */
async function signedInRun(collector: Collector): Promise<SignedInRun> {
  const place = await runPlace(suite.world, 'traced-');
  const client = {
    client_id: CLIENT_ID,
    client_secret: SECRET,
    token_endpoint_auth_method: 'client_secret_basic' as const,
    redirect_uris: [`http://127.0.0.1:${place.port}/callback`],
  };
  const { as, mcp } = await startServers(
    suite.world,
    (close) => closers.push(close),
    { dynamicRegistration: false, dpop: true, clients: [client] },
    { dpop: true },
  );
  const run = await startBridge(suite.world, {
    url: `${mcp.url}?key=${QUERY_KEY}`,
    redirectPort: place.port,
    store: 'memory',
    stateDir: place.stateDir,
    browserLog: place.browserLog,
    args: ['--client-id', CLIENT_ID, '--client-issuer', as.issuer],
    env: {
      MCP_BRIDGE_CLIENT_SECRET: SECRET,
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    },
    formAnswer: { name: ANSWER },
  });
  runs.push({ run, as, extra: [SECRET] });

  expect(text(await run.client.callTool({ name: 'echo', arguments: { text: ARGUMENT } }))).toBe(ARGUMENT);
  expect(text(await run.client.callTool({ name: 'ask_form', arguments: {} }))).toBe(
    `form: accept {"name":"${ANSWER}"}`,
  );
  // Read before the server forgets them: the first access token is gone from it after.
  const issued = as.issuedSecrets();
  // The server forgets the access token: the next request gets 401 and the bridge refreshes.
  as.revokeAccessTokens();
  expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'again' } }))).toBe('again');
  expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 1 });
  // The end of the run exports what is left (docs/observability.md#observability-switch).
  await run.close();

  // The authorization URL of the sign-in line, with its state and PKCE challenge in the query.
  const signInUrls = run.stderr.flatMap((line) => /sign in at (\S+)/.exec(line)?.[1] ?? []);
  expect(signInUrls).toHaveLength(1);
  const query = new URL(signInUrls[0]!).searchParams;
  const secrets = [...new Set([...issued, ...as.issuedSecrets()])];
  // Two access tokens, two refresh tokens, one code, one verifier, the client secret at least.
  expect(secrets.length).toBeGreaterThanOrEqual(7);
  const proofs = mcp.dpopProofs();
  expect(proofs.length).toBeGreaterThanOrEqual(4);
  const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${SECRET}`).toString('base64')}`;
  return {
    issuer: as.issuer,
    markers: [
      ...secrets,
      SECRET,
      basic,
      ...proofs,
      ARGUMENT,
      ANSWER,
      QUERY_KEY,
      ...signInUrls,
      ...['state', 'code_challenge'].map((name) => query.get(name) ?? 'absent'),
      mcp.url,
    ],
  };
}

/** The spans that show the run was traced: the sign-in, its lock, the refresh, the calls, the round. */
function expectSignInTrace(collector: Collector, issuer: string): void {
  expect(new Set(collector.spans.map((span) => span.name))).toEqual(
    new Set([
      'mcp.bridge.token_lock.wait',
      'mcp.bridge.sign_in',
      'mcp.bridge.refresh',
      'initialize',
      'tools/call echo',
      'tools/call ask_form',
      'elicitation/create',
    ]),
  );
  const signIn = collector.spans.find((span) => span.name === 'mcp.bridge.sign_in');
  expect(attributesOf(signIn!)).toEqual({
    'mcp.bridge.auth.grant': 'authorization_code',
    'mcp.bridge.auth.outcome': 'ok',
    'server.address': '127.0.0.1',
    'server.port': Number(new URL(issuer).port),
  });
  // The refresh is a child of the round of the call that got the 401.
  const refresh = collector.spans.find((span) => span.name === 'mcp.bridge.refresh');
  const round = collector.spans.find((span) => span.spanId === refresh?.parentSpanId);
  expect([round?.name, round?.kind, round && attributesOf(round)['mcp.bridge.round']]).toEqual([
    'tools/call echo',
    CLIENT,
    1,
  ]);
  expect(collector.metricNames).toEqual(
    expect.arrayContaining([
      'mcp.bridge.sign_ins',
      'mcp.bridge.refreshes',
      'mcp.bridge.input_requests',
      'mcp.bridge.rounds',
      'mcp.server.operation.duration',
    ]),
  );
}

describe('traces and metrics of a bridge run with a sign-in, to a local OTLP collector', () => {
  it('a sign-in, a tool call, an input round and a refresh: no secret in any exported byte', async () => {
    const collector = await startCollector();
    const { issuer, markers } = await signedInRun(collector);
    // The server span of the last call ends last; the metrics come at the end of the run.
    await waitFor(
      () =>
        collector.spans.filter((span) => span.kind === SERVER && span.name.startsWith('tools/call'))
          .length === 3 && collector.metricNames.includes('mcp.server.operation.duration'),
      { what: 'the spans and metrics of the run' },
    );
    expect(collector.posts.map((post) => post.contentType.split(';')[0])).toEqual(
      collector.posts.map(() => 'application/json'),
    );
    // Each POST is one "line" of the scan: the bytes of the spans, events, attributes, metrics, resource.
    expectNoSecrets({ lines: exported(collector), stderr: [] }, markers);
    const queries = exported(collector)
      .flatMap((body) => stringsOf(JSON.parse(body)))
      .filter((value) => /\?[^\s]*=/.test(value));
    expect(queries).toEqual([]);
    // Not vacuous: the scan covered the sign-in, the calls and the metrics of the run.
    expectSignInTrace(collector, issuer);
  });
});
