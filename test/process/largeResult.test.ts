/**
 * Large results through the built bridge: the upstream's bytes of the
 * members that shaping leaves unchanged reach the client as they were written, and the client
 * gets the value it got when the bridge serialised the whole result.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { handshake, req, startBridge } from '../helpers/bridgeProcess.js';
import { killAllPeers } from '../helpers/rawPeer.js';

afterAll(killAllPeers);

const MIB = 1024 * 1024;

/**
 * A 2026-07-28 upstream whose `tools/call` answers a large result picked by `arguments.kind`,
 * spelled with spaces and escapes that `JSON.stringify` would not write:
 * - `ascii`: one text block of 16 MiB of 'x' (as the bench's `big` tool);
 * - `unicode`: `resultType`, a text block of 100,000 x `é€😀\u00e9\"\\\n\t` (2.3 MB), a `_meta`
 *   with the serverInfo key and another key, `isError`;
 * - `structured`: no text block and a 2 MB `structuredContent`, so the bridge adds a text block.
 */
const UPSTREAM = String.raw`
const { createInterface } = require('node:readline');
const out = (line) => process.stdout.write(line + '\n');
const U = 'é€😀\\u00e9\\"\\\\\\n\\t';
createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const id = JSON.stringify(m.id);
  if (m.method === 'server/discover') {
    return out(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete',
      supportedVersions: ['2026-07-28'], capabilities: { tools: {} },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'big-upstream', version: '1.0.0' } } } }));
  }
  if (m.method !== 'tools/call') return out('{"jsonrpc":"2.0","id":' + id + ',"error":{"code":-32601,"message":"no"}}');
  const kind = m.params.arguments.kind;
  if (kind === 'ascii') {
    return out('{"jsonrpc":"2.0","id":' + id + ',"result":{"resultType":"complete","content":[{"type":"text","text":"' +
      'x'.repeat(16 * 1024 * 1024) + '"}]}}');
  }
  if (kind === 'unicode') {
    return out('{"jsonrpc":"2.0","result":{ "resultType" : "complete" , "content" : [ {"type":"text","text":"' +
      U.repeat(100000) + '"} ] , "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"big-upstream"},"keep":"me"},' +
      ' "isError" : false },"id":' + id + '}');
  }
  const rows = [];
  for (let i = 0; i < 100000; i++) rows.push('{ "i" : ' + i + ', "s":"\\u00fc" }');
  return out('{"jsonrpc":"2.0","id":' + id + ',"result":{"resultType":"complete","content":[],' +
    '"structuredContent" : {"rows":[' + rows.join(',') + ']}}}');
});
`;

async function call(kind: string): Promise<string> {
  const bridge = startBridge({ upstream: [process.execPath, '-e', UPSTREAM] });
  await handshake(bridge);
  bridge.send(req(3, 'tools/call', { name: 'big', arguments: { kind } }));
  const line = await bridge.nextLine((l) => l.startsWith('{"jsonrpc":"2.0","id":3,'), 30_000);
  bridge.closeStdin();
  await bridge.exit;
  return line;
}

describe('a large result through the bridge', () => {
  it('16 MiB of text arrive exactly', async () => {
    const line = await call('ascii');
    expect(line.length).toBe(16 * MIB + 73);
    expect(line).toBe(
      `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"${'x'.repeat(16 * MIB)}"}]}}`,
    );
  }, 60_000);

  it('2 MB of unicode and escapes arrive as the upstream spelled them, without the 2026 members', async () => {
    const line = await call('unicode');
    // Passed raw: the spaces and escapes of the upstream are still there.
    const rawText = String.raw`é€😀\u00e9\"\\\n\t`.repeat(100_000);
    expect(line).toBe(
      `{"jsonrpc":"2.0","id":3,"result":{"content" : [ {"type":"text","text":"${rawText}"} ],"_meta":{"keep":"me"},"isError" : false}}`,
    );
    expect(JSON.parse(line)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {
        content: [{ type: 'text', text: 'é€😀é"\\\n\t'.repeat(100_000) }],
        _meta: { keep: 'me' },
        isError: false,
      },
    });
  }, 60_000);

  it('a result whose content the bridge changes gets the new content and the raw structuredContent', async () => {
    const line = await call('structured');
    const rows = Array.from({ length: 100_000 }, (_, i) => ({ i, s: 'ü' }));
    const rawRows = Array.from({ length: 100_000 }, (_, i) => String.raw`{ "i" : ${i}, "s":"\u00fc" }`);
    // §3.6: the text block holds the compact JSON of structuredContent.
    const text = JSON.stringify({ rows });
    expect(line).toBe(
      `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":${JSON.stringify(text)}}],"structuredContent" : {"rows":[${rawRows.join(',')}]}}}`,
    );
    expect(JSON.parse(line)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text }], structuredContent: { rows } },
    });
  }, 60_000);
});
