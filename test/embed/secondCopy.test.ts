/**
 * Embedded mode with a second copy of `@modelcontextprotocol/server`: a server
 * built on another copy than the one the bridge resolves (a monorepo, `npm link`, a bundled
 * server) is served on both paths. The copy is made in node_modules/.cache, so that its own
 * dependencies still resolve. Needs `npm run build`.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initializeRequest, note, req } from '../helpers/bridgeProcess.js';
import { killAllPeers, modernRequest, responseTo, spawnPeer } from '../helpers/rawPeer.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = `${root}node_modules/.cache/second-copy-${process.pid}/`;
const EMBED = pathToFileURL(`${root}dist/src/embed/index.js`).href;

const SERVER = `
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { McpServer as BridgeCopy } from ${JSON.stringify(pathToFileURL(`${root}node_modules/@modelcontextprotocol/server/dist/index.mjs`).href)};
import { serveDualEra } from ${JSON.stringify(EMBED)};
// The test is only worth something when the two are really different copies.
if (McpServer === BridgeCopy) throw new Error('the server uses the bridge copy');
const factory = () => {
  const server = new McpServer({ name: 'copy-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool(
    'greet',
    { description: 'Greets.', inputSchema: fromJsonSchema({ type: 'object', properties: { name: { type: 'string' } } }) },
    ({ name }) => ({ content: [{ type: 'text', text: 'Hello, ' + name + '!' }] }),
  );
  return server;
};
const { closed } = serveDualEra(factory);
closed.then(() => process.exit(0), () => process.exit(1));
`;

beforeAll(() => {
  mkdirSync(`${dir}node_modules/@modelcontextprotocol`, { recursive: true });
  cpSync(
    `${root}node_modules/@modelcontextprotocol/server`,
    `${dir}node_modules/@modelcontextprotocol/server`,
    {
      recursive: true,
    },
  );
  writeFileSync(`${dir}server.mjs`, SERVER);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(killAllPeers);

describe('serveDualEra with a server of another copy of @modelcontextprotocol/server', () => {
  it('serves a 2025-11-25 client: initialize, then a tool call', async () => {
    const peer = spawnPeer(process.execPath, [`${dir}server.mjs`]);
    peer.send(initializeRequest(1));
    expect((await peer.nextFrame(responseTo(1))).result).toMatchObject({
      protocolVersion: '2025-11-25',
      serverInfo: { name: 'copy-server', version: '1.0.0' },
    });
    peer.send(note('notifications/initialized'));
    peer.send(req(2, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } }));
    expect((await peer.nextFrame(responseTo(2))).result).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  });

  it('serves a 2026-07-28 client: a tool call on the modern path', async () => {
    const peer = spawnPeer(process.execPath, [`${dir}server.mjs`]);
    const call = modernRequest('tools/call', { name: 'greet', arguments: { name: 'Ada' } });
    peer.send(call);
    expect((await peer.nextFrame(responseTo(call.id))).result).toMatchObject({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
  });
});
