/**
 * One sign-in for every session of `mcp-bridge serve <url>` (docs/serve.md#serve-sessions): the
 * BUILT generic executable serves three SDK 1.x `StreamableHTTPClientTransport` clients in front
 * of the protected MCP fixture and oidc-provider (e2eSupport.ts), with the scripted test browser
 * as `$BROWSER`. The clients declare no elicitation, so the bridge opens the browser itself; the
 * three sessions open it once in all and get one authorization code. Ends with the secret scan of
 * the process's stderr. Needs `npm run build`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { waitForValue } from '../helpers/waitFor.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { bridgeEnv } from '../process/httpSupport.js';
import { runPlace, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';

const suite = e2eSuite();
const { closers } = suite;
afterAll(killAllPeers);

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

describe('mcp-bridge serve <url> with a server that needs a sign-in', () => {
  it('three sessions open the browser once in all, and each lists and calls', async () => {
    const { as, mcp } = await startServers(suite.world, (close) => closers.push(close));
    const place = await runPlace(suite.world, 'serve-');
    const serve = spawnPeer(
      process.execPath,
      [
        GENERIC_BRIDGE,
        'serve',
        '--ca-file',
        suite.world.caFile,
        '--redirect-port',
        String(place.port),
        '--token-store',
        'memory',
        mcp.url,
      ],
      bridgeEnv({
        BROWSER: suite.world.browser,
        TEST_BROWSER_LOG: place.browserLog,
        TEST_BROWSER_CA_FILE: suite.world.caFile,
        XDG_STATE_HOME: place.stateDir,
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
      }),
    );
    const url = await waitForValue(
      () =>
        serve.stderr
          .map((line) => /^mcp-bridge: serve: listening on (http:\/\/\S+)$/.exec(line)?.[1])
          .find(Boolean),
      { what: 'the listening line', timeoutMs: 20_000 },
    );
    const sessions = await Promise.all(
      ['one', 'two', 'three'].map(async (name) => {
        const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        const tools = await client.listTools();
        const echoed = text(await client.callTool({ name: 'echo', arguments: { text: name } }));
        await client.close();
        return { tools: tools.tools.some((tool) => tool.name === 'echo'), echoed };
      }),
    );
    expect(sessions).toEqual([
      { tools: true, echoed: 'one' },
      { tools: true, echoed: 'two' },
      { tools: true, echoed: 'three' },
    ]);
    expect(readBrowserLog(place.browserLog)).toEqual([{ argc: 1, startUrl: true, mode: 'follow' }]);
    expect(as.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1 });
    const markers = as.issuedSecrets();
    expect(markers.length).toBeGreaterThan(0);
    expectNoSecrets(serve, markers);
  }, 40_000);
});
