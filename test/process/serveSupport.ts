/**
 * Shared helpers of the process tests of `mcp-bridge serve` (docs/cli.md#cli-serve): the built
 * executable in front of the 2026-07-28 fixture server, reached with SDK 1.x clients or with raw
 * HTTP requests.
 */
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { FIXTURE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { waitForValue } from '../helpers/waitFor.js';
import { wireErrorFrame } from '../helpers/wireErrors.js';

export const WAIT_MS = 20_000;

/** A running `mcp-bridge serve`. */
export interface ServeProcess {
  readonly peer: RawPeer;
  readonly url: string;
  readonly port: number;
}

/** `mcp-bridge serve [args] -- node <fixture>`; resolves with its URL once it listens. */
export async function startServe(
  args: readonly string[] = [],
  env?: NodeJS.ProcessEnv,
): Promise<ServeProcess> {
  const peer = spawnPeer(
    process.execPath,
    [GENERIC_BRIDGE, 'serve', ...args, '--', process.execPath, FIXTURE],
    env,
  );
  const url = await listeningUrl(peer);
  return { peer, url, port: Number(new URL(url).port) };
}

/** The URL of the line `mcp-bridge: serve: listening on <url>` once `peer` wrote it. */
export function listeningUrl(peer: RawPeer, timeoutMs = WAIT_MS): Promise<string> {
  return waitForValue(
    () =>
      peer.stderr
        .map((line) => /^mcp-bridge: serve: listening on (http:\/\/\S+)$/.exec(line)?.[1])
        .find(Boolean),
    { what: 'the listening line', timeoutMs },
  );
}

/** An SDK 1.x client connected to `url`. */
export async function connectClient(
  url: string,
  capabilities: Record<string, unknown> = {},
  setup: (client: Client) => void = () => undefined,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'serve-test', version: '1.0.0' }, { capabilities });
  setup(client);
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/** The answer of one raw HTTP request: status, headers and body text. */
export interface RawReply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One HTTP request with exactly the given headers (Host included), read to its end or its first event. */
export function raw(
  port: number,
  method: string,
  headers: Record<string, string>,
  body?: string,
  path = '/mcp',
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          // An event stream stays open: its first event is enough.
          if (String(res.headers['content-type']).startsWith('text/event-stream') && text.includes('\n\n')) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const POST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
};

/** A raw initialize of revision 2025-11-25 with `capabilities`. */
export const initialize = (capabilities: object = {}): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
  });

export const INITIALIZE = initialize();

/** Initializes a session with a raw POST; resolves with its id. */
export async function rawSession(port: number, capabilities: object = {}): Promise<string> {
  const reply = await raw(port, 'POST', POST_HEADERS, initialize(capabilities));
  const id = reply.headers['mcp-session-id'];
  if (reply.status !== 200 || typeof id !== 'string') throw new Error(`initialize failed: ${reply.status}`);
  await raw(
    port,
    'POST',
    { ...POST_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  );
  return id;
}

/** The body of a refusal of the front end (docs/serve.md#serve-errors). */
export const refusal = (code: number, message: string, cause: string, id: number | null = null) => ({
  jsonrpc: '2.0',
  id,
  error: { code, message, data: { cause } },
});
/** The bridge's too_many_requests response to `id`. */
export const TOO_MANY = (id: number) => wireErrorFrame(id, 'too_many_requests');
/** A tools/call body. */
export const call = (id: number, name: string, args: object) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
/** The headers of a POST in `session`. */
export const inSession = (session: string) => ({
  ...POST_HEADERS,
  'mcp-session-id': session,
  'mcp-protocol-version': '2025-11-25',
});
