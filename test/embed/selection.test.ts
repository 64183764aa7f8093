/**
 * Path selection of embedded mode by the first request (docs/embedded.md#embedded-selection, docs/testing.md#testing-embed): the
 * fixture server served dual-era in this process over PassThrough streams.
 */
import { describe, expect, it } from 'vitest';
import { VSCODE_CAPABILITIES, initializeRequest, note, req } from '../helpers/bridgeProcess.js';
import { MODERN_META, modernRequest, responseTo } from '../helpers/rawPeer.js';
import type { Frame } from '../helpers/rawPeer.js';
import { usePeers } from './memoryPeer.js';
import type { MemoryPeer } from './memoryPeer.js';

const start = usePeers();

const line = (frame: unknown): string => `${JSON.stringify(frame)}\n`;
const discover = (id: number | string): object => req(id, 'server/discover', { _meta: MODERN_META });
const ask = async (peer: MemoryPeer, frame: object): Promise<Frame> => {
  peer.send(frame);
  return peer.nextFrame(responseTo((frame as { id?: unknown }).id));
};

/** The 2025-11-25 initialize result of the fixture server, through the bridge. */
async function expectLegacyInitialize(peer: MemoryPeer, id: number | string = 1): Promise<void> {
  const response = await peer.nextFrame(responseTo(id));
  expect(response.result).toMatchObject({
    protocolVersion: '2025-11-25',
    serverInfo: { name: 'bridge-fixture-server', version: '0.0.0' },
  });
  expect(JSON.stringify(response)).not.toContain('io.modelcontextprotocol/');
  expect(await peer.era).toBe('legacy');
}

/** VS Code answers the form of ask_form and the tool result has the answer. */
async function answerForm(peer: MemoryPeer, id: number | string): Promise<void> {
  peer.send(req(id, 'tools/call', { name: 'ask_form', arguments: {} }));
  const ask = await peer.nextFrame((frame) => frame.method === 'elicitation/create');
  expect(ask.id).toBe('b-1');
  expect(ask.params).toMatchObject({ mode: 'form', message: 'Tell us about you.' });
  peer.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada', age: 36 } } });
  const response = await peer.nextFrame(responseTo(id));
  expect(response.result).toEqual({
    content: [{ type: 'text', text: 'form: accept {"name":"Ada","age":36}' }],
  });
}

describe('embedded mode: the legacy path', () => {
  it('initialize first selects the legacy path: VS Code lists the tools and answers the form of a tool', async () => {
    const peer = start();
    peer.send(initializeRequest(1));
    await expectLegacyInitialize(peer);
    peer.send(note('notifications/initialized'));
    const tools = await ask(peer, req(2, 'tools/list'));
    const names = (tools.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['echo', 'ask_form', 'slow']));
    expect(tools.result).not.toHaveProperty('resultType');
    await answerForm(peer, 3);
  });

  it('server/discover first is answered by the server without a path, and initialize then selects the legacy path', async () => {
    const peer = start();
    peer.send(discover(0));
    const discovered = await peer.nextFrame(responseTo(0));
    expect(discovered.result).toMatchObject({ supportedVersions: ['2026-07-28'], resultType: 'complete' });
    peer.send(initializeRequest(1));
    await expectLegacyInitialize(peer);
  });

  it('with discover refuse, server/discover gets -32601 and the Copilot harness then takes the legacy path for a form', async () => {
    const peer = start({ discover: 'refuse' });
    const refused = await ask(peer, discover('probe'));
    expect(refused.error).toMatchObject({ code: -32601, data: { cause: 'method_not_found' } });
    peer.send(initializeRequest(1, { elicitation: { form: {} } }));
    await expectLegacyInitialize(peer);
    peer.send(note('notifications/initialized'));
    await answerForm(peer, 2);
  });

  it('blank lines select no path: initialize after them selects the legacy path', async () => {
    const peer = start();
    peer.write('\n  \n\t\r\n');
    peer.send(initializeRequest(1));
    await expectLegacyInitialize(peer);
    expect(peer.lines).toHaveLength(1);
  });

  it('a first line longer than the line limit gets no response and selects no path', async () => {
    const peer = start({ maxLineBytes: 1024 });
    peer.send({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: { pad: 'x'.repeat(2048) } });
    peer.send(initializeRequest(1));
    await expectLegacyInitialize(peer);
    expect(peer.lines).toHaveLength(1);
  });

  it('two messages in one chunk, initialize and notifications/initialized, are both processed', async () => {
    const peer = start();
    peer.write(line(initializeRequest(1)) + line(note('notifications/initialized')));
    await expectLegacyInitialize(peer);
    const tools = await ask(peer, req(2, 'tools/list'));
    expect(tools.result).toHaveProperty('tools');
  });

  it('a later initialize on the legacy path is refused by the bridge', async () => {
    const peer = start();
    peer.send(initializeRequest(1, VSCODE_CAPABILITIES));
    await expectLegacyInitialize(peer);
    const again = await ask(peer, initializeRequest(2));
    expect(again.error).toMatchObject({ code: -32600, data: { cause: 'already_initialized' } });
  });
});

describe('embedded mode: the modern path', () => {
  it('server/discover first is answered by the server without a path, and a modern call then selects the modern path', async () => {
    const peer = start();
    const discovered = await ask(peer, discover(0));
    expect(discovered.result).toMatchObject({ supportedVersions: ['2026-07-28'] });
    const call = modernRequest('tools/call', { name: 'echo', arguments: { text: 'hi' } });
    const response = await ask(peer, call);
    expect(response.result).toMatchObject({
      content: [{ type: 'text', text: 'hi' }],
      resultType: 'complete',
    });
    expect(await peer.era).toBe('modern');
  });

  it('with discover refuse, server/discover gets -32601 and selects no path, and a modern request then selects the modern path', async () => {
    const peer = start({ discover: 'refuse' });
    const refused = await ask(peer, discover(0));
    expect(refused.error).toMatchObject({ code: -32601, data: { cause: 'method_not_found' } });
    const response = await ask(peer, modernRequest('tools/list'));
    expect(response.result).toMatchObject({ resultType: 'complete' });
    expect(await peer.era).toBe('modern');
  });

  it('a tools/list with the _meta of revision 2026-07-28 first selects the modern path', async () => {
    const peer = start();
    const response = await ask(peer, modernRequest('tools/list'));
    const result = response.result as { tools: { name: string }[]; _meta: object };
    expect(result.tools.map((tool) => tool.name)).toContain('ask_form');
    expect(result._meta).toHaveProperty(['io.modelcontextprotocol/serverInfo']);
    expect(await peer.era).toBe('modern');
  });

  it('a notification first selects the modern path, also notifications/initialized', async () => {
    const peer = start();
    peer.send(note('notifications/initialized'));
    const response = await ask(peer, initializeRequest(1));
    // serveStdio refuses the 2025-era handshake on a modern connection (-32022, not -32601).
    expect(response.error).toMatchObject({ code: -32022, data: { supported: ['2026-07-28'] } });
    expect(await peer.era).toBe('modern');
  });

  it('malformed JSON first selects the modern path and gets -32700 with id null', async () => {
    const peer = start();
    peer.send('{"jsonrpc":"2.0","id":5,"method":"initialize",');
    const error = await peer.nextFrame((frame) => 'error' in frame);
    expect(error).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: expect.objectContaining({ code: -32700, data: { cause: 'parse_error' } }),
    });
    expect(await peer.era).toBe('modern');
    const response = await ask(peer, modernRequest('tools/list'));
    expect(response.result).toHaveProperty('tools');
  });

  it('a line that is not valid UTF-8 first selects the modern path with a parse error', async () => {
    const peer = start();
    const head = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"');
    peer.write(Buffer.concat([head, Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]));
    const error = await peer.nextFrame((frame) => 'error' in frame);
    expect(error).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await peer.era).toBe('modern');
  });

  it('initialize only in a string value selects the modern path', async () => {
    const peer = start();
    const response = await ask(peer, req(1, 'tools/list', { cursor: 'initialize' }));
    expect(response.error).toMatchObject({ code: -32022 });
    expect(await peer.era).toBe('modern');
  });

  it('the end of the input at once selects no path and writes nothing', async () => {
    const peer = start();
    peer.end();
    await peer.closed;
    await peer.outputEnded;
    expect(await peer.era).toBe('none');
    expect(peer.lines).toEqual([]);
  });

  it('only blank lines and a discover refusal before the end select no path', async () => {
    const peer = start({ discover: 'refuse' });
    peer.write(`\n${line(discover(0))}\n`);
    peer.end();
    await peer.closed;
    await peer.outputEnded;
    expect(await peer.era).toBe('none');
    expect(peer.lines).toHaveLength(1);
  });

  it('two messages in one chunk, server/discover and a modern call, are both answered', async () => {
    const peer = start();
    const call = modernRequest('tools/call', { name: 'add', arguments: { a: 2, b: 3 } });
    peer.write(line(discover('d')) + line(call));
    expect((await peer.nextFrame(responseTo('d'))).result).toHaveProperty('supportedVersions');
    expect((await peer.nextFrame(responseTo(call.id))).result).toMatchObject({
      content: [{ type: 'text', text: '5' }],
    });
    expect(await peer.era).toBe('modern');
  });
});
