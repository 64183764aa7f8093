/**
 * What of the client travels upstream through each built executable (README "Profiles"): the
 * generic `mcp-bridge` passes every `_meta` key of a request that 2026-07-28 does not reserve,
 * the whole `clientInfo` and `roots.listChanged`; `mcp-bridge-vscode` keeps the reference rule
 * (trace keys and `vscode.*`, name and version, `roots: {}`). The modern fixture's `meta_echo`
 * shows what the upstream server read, a tap what the bridge wrote. Needs the build.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { BRIDGE, GENERIC_BRIDGE, note, req, tapped, untilUpstream } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo, spawnPeer } from '../helpers/rawPeer.js';
import { validateModernRequest } from '../helpers/schemas.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node three times: bridge, tap, fixture). */
const STARTUP_MS = 30_000;

const PNG = 'data:image/png;base64,iVBORw0KGgo=';

/** The `clientInfo` of a client that fills all of `Implementation`. */
const CLIENT_INFO = {
  name: 'codex-mcp-client',
  version: '0.50.0',
  title: 'Codex',
  description: 'The Codex CLI',
  websiteUrl: 'https://example.com/codex',
  icons: [{ src: PNG, mimeType: 'image/png', sizes: ['48x48'], theme: 'light' }],
};

/** The `_meta` of a tools/call: keys of Codex, Claude Code and VS Code, and reserved ones. */
const CLIENT_META = {
  'x-codex-turn-metadata': { turn: 3, cwd: '/work' },
  threadId: 'th-1',
  'claudecode/toolUseId': 'toolu_01',
  'vscode.conversationId': 'c-1',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  'io.modelcontextprotocol/clientInfo': { name: 'spoofed', version: '9' },
  'io.modelcontextprotocol/whatever': 'x',
  'dev.mcp/x': 'x',
};

afterAll(killAllPeers);

/** An executable in front of the tapped fixture, initialized with CLIENT_INFO and roots.listChanged. */
async function started(bin: string): Promise<RawPeer> {
  const peer = spawnPeer(process.execPath, [bin, '--', ...tapped()]);
  peer.send(
    req(1, 'initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { roots: { listChanged: true } },
      clientInfo: CLIENT_INFO,
    }),
  );
  expect(await peer.nextFrame(responseTo(1), STARTUP_MS)).toHaveProperty('result');
  peer.send(note('notifications/initialized'));
  return peer;
}

/**
 * The `_meta` the fixture read in `meta_echo`, and the `_meta` the bridge wrote for that call
 * (with its `progressToken`, the upstream id, as the fixture echoes it).
 */
async function echo(peer: RawPeer): Promise<{ read: Frame; sent: Frame }> {
  peer.send(req(2, 'tools/call', { name: 'meta_echo', arguments: {}, _meta: CLIENT_META }));
  const response = await peer.nextFrame(responseTo(2), STARTUP_MS);
  const [call] = await untilUpstream(peer, '>', (frame) => frame.method === 'tools/call');
  expect(validateModernRequest(call)).toEqual([]);
  const read = (response.result as { structuredContent: Frame }).structuredContent;
  return { read, sent: (call!.params as { _meta: Frame })._meta };
}

describe('mcp-bridge (the generic profile)', () => {
  it('passes the unreserved _meta keys, the full clientInfo and roots.listChanged; the bridge keys win', async () => {
    const peer = await started(GENERIC_BRIDGE);
    const { read, sent } = await echo(peer);
    const expected = {
      'x-codex-turn-metadata': { turn: 3, cwd: '/work' },
      threadId: 'th-1',
      'claudecode/toolUseId': 'toolu_01',
      'vscode.conversationId': 'c-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } },
    };
    expect(read).toEqual({ ...expected, progressToken: expect.any(Number) as unknown });
    expect(sent).toEqual(read);
    const [discover] = await untilUpstream(peer, '>', (frame) => frame.method === 'server/discover');
    expect(validateModernRequest(discover)).toEqual([]);
    expect((discover!.params as { _meta: Frame })._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
      'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } },
      progressToken: 1,
    });
  });
});

describe('mcp-bridge-vscode (the VS Code profile)', () => {
  it('keeps the reference rule: trace and vscode.* keys, name and version, roots: {}', async () => {
    const { read, sent } = await echo(await started(BRIDGE));
    const expected = {
      'vscode.conversationId': 'c-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.50.0' },
      'io.modelcontextprotocol/clientCapabilities': { roots: {} },
    };
    expect(read).toEqual({ ...expected, progressToken: expect.any(Number) as unknown });
    expect(sent).toEqual(read);
  });
});
