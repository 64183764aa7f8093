/**
 * The embedded fixture server as a real process over pipes (docs/embedded.md#embedded-selection, docs/testing.md#testing-process
 * items 17–21, §10 item 13): `node dist/test/fixtures/embeddedServer.js`. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  VSCODE_CAPABILITIES,
  handshakeWithToolsList,
  initializeRequest,
  note,
  req,
} from '../helpers/bridgeProcess.js';
import {
  MODERN_META,
  killAllPeers,
  modernRequest,
  notification,
  parseFrame,
  responseTo,
  spawnPeer,
} from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';

const EMBEDDED = fileURLToPath(new URL('../../dist/test/fixtures/embeddedServer.js', import.meta.url));
/**
 * A call that would run for an hour: with one in flight, an exit at the end of stdin is the cut of
 * the grace (docs/embedded.md#embedded-stop). The length of the grace is the subject of
 * test/embed/modernPath.test.ts and legacyPath.test.ts; here the event is the exit, which does not
 * depend on the load of the machine.
 */
const ENDLESS_MS = 3_600_000;

afterEach(killAllPeers);

const startEmbedded = (...args: string[]): RawPeer => spawnPeer(process.execPath, [EMBEDDED, ...args]);

/** Closes stdin; resolves with the exit code once the process exited. */
async function exitAfterEof(peer: RawPeer): Promise<number | null> {
  peer.closeStdin();
  const { code } = await peer.exit;
  return code;
}

async function legacyHandshake(peer: RawPeer, capabilities: object = VSCODE_CAPABILITIES): Promise<void> {
  peer.send(initializeRequest(1, capabilities));
  const response = await peer.nextFrame(responseTo(1));
  expect(response.result).toMatchObject({ protocolVersion: '2025-11-25' });
  peer.send(note('notifications/initialized'));
}

/** Answers the form of ask_form (call `id`) and checks that the result has the answer. */
async function answerForm(peer: RawPeer, id: number): Promise<void> {
  peer.send(req(id, 'tools/call', { name: 'ask_form', arguments: {} }));
  const ask = await peer.nextFrame((frame) => frame.method === 'elicitation/create');
  peer.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } });
  const response = await peer.nextFrame(responseTo(id));
  expect(response.result).toEqual({ content: [{ type: 'text', text: 'form: accept {"name":"Ada"}' }] });
}

describe('the embedded server process', () => {
  it('initialize selects the legacy path, a tool asks for a form, and the process exits with code 0 at the end of stdin', async () => {
    const peer = startEmbedded();
    await legacyHandshake(peer);
    await answerForm(peer, 2);
    expect(await exitAfterEof(peer)).toBe(0);
    expect(peer.stderr).toContain('bridge-fixture-server: era: legacy');
  });

  it('with --refuse-discover the Copilot harness gets -32601 for server/discover and selects the legacy path', async () => {
    const peer = startEmbedded('--refuse-discover');
    peer.send(req('probe', 'server/discover', { _meta: MODERN_META }));
    const refused = await peer.nextFrame(responseTo('probe'));
    expect(refused.error).toMatchObject({ code: -32601, data: { cause: 'method_not_found' } });
    await legacyHandshake(peer, { elicitation: { form: {} } });
    await answerForm(peer, 2);
    expect(await exitAfterEof(peer)).toBe(0);
  });

  it('a client of revision 2026-07-28 selects the modern path, and the process exits with code 0 at the end of stdin', async () => {
    const peer = startEmbedded();
    const discover = req(0, 'server/discover', { _meta: MODERN_META });
    peer.send(discover);
    expect((await peer.nextFrame(responseTo(0))).result).toMatchObject({ supportedVersions: ['2026-07-28'] });
    const call = modernRequest('tools/call', { name: 'echo', arguments: { text: 'modern' } });
    peer.send(call);
    expect((await peer.nextFrame(responseTo(call.id))).result).toMatchObject({
      content: [{ type: 'text', text: 'modern' }],
      resultType: 'complete',
    });
    expect(await exitAfterEof(peer)).toBe(0);
    expect(peer.stderr).toContain('bridge-fixture-server: era: modern');
  });

  it('stops at the end of stdin on the legacy path with a listen stream, a slow call, a form and a sampling in flight', async () => {
    const peer = startEmbedded();
    await handshakeWithToolsList(peer);
    // The catch-up of the tools listed before: the listen stream is acknowledged.
    await peer.nextFrame(notification('notifications/tools/list_changed'));
    peer.send(req(2, 'tools/call', { name: 'slow', arguments: { ms: ENDLESS_MS } }));
    peer.send(req(3, 'tools/call', { name: 'ask_form', arguments: {} }));
    peer.send(req(4, 'tools/call', { name: 'ask_sample', arguments: {} }));
    await peer.nextFrame((frame) => frame.method === 'elicitation/create');
    await peer.nextFrame((frame) => frame.method === 'sampling/createMessage');
    expect(await exitAfterEof(peer)).toBe(0);
  });

  it('stops at the end of stdin on the modern path with a listen stream and a slow call in flight', async () => {
    const peer = startEmbedded();
    const stream = modernRequest('subscriptions/listen', { notifications: { toolsListChanged: true } });
    peer.send(stream);
    await peer.nextFrame(notification('notifications/subscriptions/acknowledged'));
    peer.send(modernRequest('tools/call', { name: 'slow', arguments: { ms: ENDLESS_MS } }));
    expect(await exitAfterEof(peer)).toBe(0);
    expect(peer.lines.map((line) => parseFrame(line)?.id)).toContain(stream.id);
  });

  it('with --log-level debug, stdout has only JSON-RPC messages on both paths', async () => {
    for (const modern of [false, true]) {
      const peer = startEmbedded('--log-level', 'debug');
      if (modern) {
        const call = modernRequest(
          'tools/call',
          { name: 'log', arguments: {} },
          {
            'io.modelcontextprotocol/logLevel': 'debug',
          },
        );
        peer.send(call);
        await peer.nextFrame(responseTo(call.id));
      } else {
        await legacyHandshake(peer);
        peer.send(req(2, 'logging/setLevel', { level: 'debug' }));
        peer.send(req(3, 'tools/call', { name: 'log', arguments: {} }));
        await peer.nextFrame(responseTo(3));
      }
      expect(await exitAfterEof(peer)).toBe(0);
      await peer.stdoutClosed;
      expect(peer.lines.length).toBeGreaterThan(1);
      for (const line of peer.lines) expect(parseFrame(line)).toMatchObject({ jsonrpc: '2.0' });
      expect(peer.stderr.length).toBeGreaterThan(0);
    }
  });
});
