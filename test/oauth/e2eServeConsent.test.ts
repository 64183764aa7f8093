/**
 * The sign-in question of `mcp-bridge serve <url>` goes to the session whose request needs it
 * (docs/serve.md#serve-routing): the BUILT generic executable serves two SDK 1.x Streamable HTTP
 * clients that both declare URL elicitation, in front of the protected MCP fixture whose `add`
 * needs a step-up. The owner signs in at its `initialize` (the browser); a second session connects
 * after it; the owner's step-up then asks the owner, never the newer session. Needs `npm run build`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { browse, readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { runPlace, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';
import { serveSignIn, text } from './e2eServeSupport.js';

const suite = e2eSuite();
const serve = serveSignIn();

describe('mcp-bridge serve <url>: the sign-in question of a request', () => {
  it('goes to the session whose request needs it, not to a session that connected later', async () => {
    const { as, mcp } = await startServers(
      suite.world,
      (close) => suite.closers.push(close),
      {},
      { stepUpTools: [{ name: 'add', scope: 'mcp:write' }] },
    );
    const place = await runPlace(suite.world, 'serve-consent-');
    const world = suite.world;
    const { url } = await serve.start(world, place, mcp.url);
    const asked: Record<'owner' | 'later', string[]> = { owner: [], later: [] };
    const connect = async (name: 'owner' | 'later'): Promise<Client> => {
      const client = new Client({ name, version: '1.0.0' }, { capabilities: { elicitation: { url: {} } } });
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        const params = request.params;
        if (params.mode !== 'url') return { action: 'decline' };
        asked[name].push(params.message);
        // Only the owner opens the URL (as VS Code would); the other declines what it never asked for.
        if (name !== 'owner') return { action: 'decline' };
        void browse(params.url, { ca: world.certs.caPem }).catch(() => undefined);
        return { action: 'accept' };
      });
      serve.clients.push(client);
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    };
    // The owner's initialize signs in through the browser (before `initialized`).
    const owner = await connect('owner');
    const later = await connect('later');
    expect(text(await later.callTool({ name: 'echo', arguments: { text: 'later' } }))).toBe('later');

    // The owner's step-up is asked of the owner.
    expect(text(await owner.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
    expect(asked).toEqual({
      owner: [
        'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.',
      ],
      later: [],
    });
    // One browser start in all: the step-up after initialized never opens one.
    expect(readBrowserLog(place.browserLog)).toHaveLength(1);
    expect(as.stats()).toMatchObject({ authorizationRequests: 2, codeGrants: 2 });
  }, 60_000);
});
