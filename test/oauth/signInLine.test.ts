/**
 * What the sign-in line holds (src/oauth/interactive.ts; SECURITY.md requirement 7;
 * docs/logging.md#logging-hygiene): the authorization URL, whose `resource` parameter is the `resource` of the
 * protected resource metadata. A key in the query of the MCP URL reaches no line at all; a key in
 * its path reaches the sign-in line only inside that `resource`, when the server publishes it
 * there, and no other line.
 */
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { post, signInSuite } from './signInHarness.js';

const suite = signInSuite();
const PATH_KEY = 'sk-SECRET123';
const QUERY_KEY = 'qk-SECRET456';

describe('the sign-in line holds no key of the MCP URL outside its resource', () => {
  it('a key in the path of the MCP URL appears only as the resource of the authorization URL; one in the query nowhere', async () => {
    const { as, mcp } = await suite.servers({}, { prmPath: 'header' });
    const origin = new URL(mcp.url).origin;
    const resource = `${origin}/mcp/${PATH_KEY}`;
    const mcpUrl = `${resource}?key=${QUERY_KEY}`;
    as.allowResource(resource);
    // The server publishes the whole path of the MCP URL as its resource (RFC 9728 §3.3 allows it).
    const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      const response = await suite.net.fetch(input, init);
      if (url !== mcp.resourceMetadataUrl) return response;
      const document = (await response.json()) as Record<string, unknown>;
      return new Response(JSON.stringify({ ...document, resource }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }) as typeof globalThis.fetch;
    const h = suite.make({ config: { url: mcpUrl, noBrowser: true }, deps: { fetch } });
    const first = await post(suite.net.fetch, mcp.url, h.auth);
    const pending = h.auth.challenge({
      status: 401,
      wwwAuthenticate: first.wwwAuthenticate,
      method: 'tools/list',
      signal: new AbortController().signal,
    });
    await waitFor(() => h.signInLines.length > 0, { what: 'the sign-in line' });
    const [line = ''] = h.signInLines;
    const shown = line.replace('mcp-bridge-vscode: sign in at ', '');
    await browse(shown, { ca: suite.certs.caPem });
    await pending;
    expect(as.stats().codeGrants).toBe(1);

    expect(h.signInLines).toHaveLength(1);
    expect(line.startsWith(`mcp-bridge-vscode: sign in at ${as.issuer}`)).toBe(true);
    const authorizationUrl = new URL(shown);
    expect(authorizationUrl.searchParams.get('resource')).toBe(resource);
    authorizationUrl.searchParams.delete('resource');
    const output = {
      lines: [],
      stderr: [...h.logs.map((l) => `${l.scope}: ${l.level}: ${l.text}`), ...h.errors],
    };
    // Outside the resource parameter of the sign-in line, neither key appears anywhere.
    expectNoSecrets({ lines: [], stderr: [...output.stderr, authorizationUrl.href] }, [PATH_KEY, QUERY_KEY]);
    // The key of the query appears nowhere, the sign-in line included.
    expectNoSecrets({ lines: [], stderr: [...output.stderr, line] }, [QUERY_KEY]);
  });
});
