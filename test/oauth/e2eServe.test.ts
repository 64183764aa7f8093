/**
 * One sign-in for every session of `mcp-bridge serve <url>` (docs/serve.md#serve-sessions): the
 * BUILT generic executable serves three SDK 1.x Streamable HTTP clients, none of which can show a
 * URL, in front of the protected MCP fixture and oidc-provider (e2eSupport.ts). The three connect
 * and send their first requests at once; the browser opens once, the authorization server sees one authorization and one code
 * grant, and every session lists and calls. Needs `npm run build`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { runPlace, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';
import { serveSignIn, text } from './e2eServeSupport.js';

const suite = e2eSuite();
const serve = serveSignIn();

describe('mcp-bridge serve <url> with a server that needs a sign-in', () => {
  it('three sessions that start at once open one browser in all, and each lists and calls', async () => {
    const { as, mcp } = await startServers(suite.world, (close) => suite.closers.push(close));
    const place = await runPlace(suite.world, 'serve-');
    const world = suite.world;
    const { peer, url } = await serve.start(world, place, mcp.url);
    const sessions = await Promise.all(
      ['one', 'two', 'three'].map(async (name) => {
        const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
        serve.clients.push(client);
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        return { name, client };
      }),
    );
    // The first requests that need the sign-in go at once, from every session.
    const listed = await Promise.all(sessions.map(({ client }) => client.listTools()));
    expect(listed.map(({ tools }) => tools.some((tool) => tool.name === 'echo'))).toEqual([true, true, true]);
    const echoed = await Promise.all(
      sessions.map(({ name, client }) => client.callTool({ name: 'echo', arguments: { text: name } })),
    );
    expect(echoed.map(text)).toEqual(['one', 'two', 'three']);
    expect(readBrowserLog(place.browserLog)).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 0 });
    // One sign-in line, and no token, code or secret in what the server wrote.
    expect(peer.stderr.filter((line) => line.startsWith('mcp-bridge: sign in at '))).toHaveLength(1);
    const markers = as.issuedSecrets();
    expect(markers.length).toBeGreaterThan(0);
    expectNoSecrets({ lines: peer.lines, stderr: peer.stderr }, markers);
  });
});
