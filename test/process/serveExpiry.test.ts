/**
 * Sessions that end themselves in `mcp-bridge serve` (docs/serve.md#serve-sessions): SDK 1.x
 * clients that exit without DELETE never lock out the next ones, and a client that comes back
 * with a session id that ended gets the 404 of the transport and initializes again. Needs the
 * build (`npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { WAIT_MS, startServe } from './serveSupport.js';

afterAll(killAllPeers);

const FULL = (max: number) =>
  new RegExp(
    `^mcp-bridge: serve: info: the table of ${max} sessions is full: the session idle longest \\(\\d+ s\\) ends to make room$`,
  );

/** A client that never listens: its GET is answered 405 on its own side, as by a server without one. */
const noListen: typeof fetch = async (input, init) =>
  init?.method === 'GET' ? new Response(null, { status: 405 }) : fetch(input, init);

/** One short run of a client that exits without DELETE, as `claude -p` does: connect, list, go. */
async function shortRun(url: string): Promise<string[]> {
  const client = new Client({ name: 'short-run', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: noListen }));
  const { tools } = await client.listTools();
  // close() aborts the transport's requests; only terminateSession() would send DELETE.
  await client.close();
  return tools.map((tool) => tool.name);
}

describe('sessions that end themselves', () => {
  it('lets three short runs without DELETE connect to serve --max-sessions 2', async () => {
    const serve = await startServe(['--max-sessions', '2']);
    for (let run = 0; run < 3; run += 1) {
      expect(await shortRun(serve.url)).toContain('add');
    }
    // The third found the table full of the two that never said goodbye, and one of them made room.
    expect(serve.peer.stderr.filter((line) => FULL(2).test(line))).toHaveLength(1);
  });

  it('answers a client whose session ended with 404, and the SDK client initializes again', async () => {
    const serve = await startServe(['--max-sessions', '1']);
    const a = new Client({ name: 'comes-back', version: '1.0.0' });
    await a.connect(new StreamableHTTPClientTransport(new URL(serve.url), { fetch: noListen }));
    expect((await a.listTools()).tools.map((tool) => tool.name)).toContain('add');
    // Another client takes the one place: the idle session of `a` makes room.
    expect(await shortRun(serve.url)).toContain('add');
    await waitFor(() => serve.peer.stderr.some((line) => FULL(1).test(line)), {
      what: 'the line of the full table',
      timeoutMs: WAIT_MS,
    });
    const error: unknown = await a.listTools().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(StreamableHTTPError);
    expect((error as StreamableHTTPError).code).toBe(404);
    // The transport's rule: on 404, a new initialize without the session id.
    await a.close();
    await a.connect(new StreamableHTTPClientTransport(new URL(serve.url), { fetch: noListen }));
    expect((await a.listTools()).tools.map((tool) => tool.name)).toContain('add');
    await a.close();
  });
});
