/**
 * The set-up the end-to-end tests of `mcp-bridge serve <url>` share (test/oauth/e2eServe*.test.ts,
 * docs/serve.md#serve-sessions): the BUILT generic executable in front of the protected MCP
 * fixture, signing in with the test browser of one run place, reached with SDK 1.x clients; the
 * clients closed and the process stopped after each test. Needs `npm run build`.
 *
 *   const suite = e2eSuite();
 *   const serve = serveSignIn();
 *   const url = await serve.start(suite.world, place, mcp.url);
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach } from 'vitest';
import { GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { bridgeEnv } from '../process/httpSupport.js';
import { listeningUrl } from '../process/serveSupport.js';
import type { E2eWorld, RunPlace } from './e2eSupport.js';

export interface ServeSignIn {
  /** The clients of the test: closed after it. */
  readonly clients: Client[];
  /** Starts `mcp-bridge serve <mcpUrl>` with the memory store; resolves with its URL once it listens. */
  start(world: E2eWorld, place: RunPlace, mcpUrl: string): Promise<{ peer: RawPeer; url: string }>;
}

/** Call it at the top of a test file, after e2eSuite(): its clean-up then runs before the suite's. */
export function serveSignIn(): ServeSignIn {
  const peers: RawPeer[] = [];
  const clients: Client[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
    for (const peer of peers.splice(0)) peer.kill();
  });
  return {
    clients,
    async start(world, place, mcpUrl) {
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
          mcpUrl,
        ],
        bridgeEnv({
          BROWSER: world.browser,
          TEST_BROWSER_LOG: place.browserLog,
          TEST_BROWSER_CA_FILE: world.caFile,
          XDG_STATE_HOME: place.stateDir,
          DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
        }),
      );
      // Kept before the wait: a process that never listens is stopped too.
      peers.push(peer);
      return { peer, url: await listeningUrl(peer, 30_000) };
    },
  };
}

/** The text of the first content block of a tool result. */
export const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;
