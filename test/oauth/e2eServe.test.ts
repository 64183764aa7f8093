/**
 * One sign-in for every session of `mcp-bridge serve <url>` (docs/serve.md#serve-sessions): the
 * BUILT generic executable serves three SDK 1.x Streamable HTTP clients, none of which can show a
 * URL, in front of the protected MCP fixture and oidc-provider (e2eSupport.ts). The three connect
 * and send their first requests at once; the browser opens once, the authorization server sees one authorization and one code
 * grant, and every session lists and calls. Needs `npm run build`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { waitForValue } from '../helpers/waitFor.js';
import { bridgeEnv } from '../process/httpSupport.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { runPlace, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';

const suite = e2eSuite();
const peers: RawPeer[] = [];
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  for (const peer of peers.splice(0)) peer.kill();
});

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

describe('mcp-bridge serve <url> with a server that needs a sign-in', () => {
  it('three sessions that start at once open one browser in all, and each lists and calls', async () => {
    const { as, mcp } = await startServers(suite.world, (close) => suite.closers.push(close));
    const place = await runPlace(suite.world, 'serve-');
    const world = suite.world;
    const peer = spawnPeer(
      process.execPath,
      [
        GENERIC_BRIDGE,
        'serve',
        '--ca-file',
        world.caFile,
        '--redirect-port',
        String(place.port),
        '--token-store',
        'memory',
        mcp.url,
      ],
      bridgeEnv({
        BROWSER: world.browser,
        TEST_BROWSER_LOG: place.browserLog,
        TEST_BROWSER_CA_FILE: world.caFile,
        XDG_STATE_HOME: place.stateDir,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
      }),
    );
    peers.push(peer);
    const url = await waitForValue(
      () =>
        peer.stderr
          .map((line) => /^mcp-bridge: serve: listening on (http:\/\/\S+)$/.exec(line)?.[1])
          .find(Boolean),
      { what: 'the listening line', timeoutMs: 30_000 },
    );
    const sessions = await Promise.all(
      ['one', 'two', 'three'].map(async (name) => {
        const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
        clients.push(client);
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
