/**
 * The profile reaches the bridge through createProfileBridge: its `_meta` pass-through decides
 * what of the client travels upstream (its `_meta` keys, `clientInfo`, `roots.listChanged`), its
 * quirks shape `tools/list`.
 */
import { Subject, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { silentLogger } from '../../src/ports/logger.js';
import type { UpstreamConnection } from '../../src/ports/upstream.js';
import { createProfileBridge, genericProfile, vscodeProfile } from '../../src/index.js';
import type { Profile } from '../../src/index.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';

const frame = (value: object): Inbound => ({ kind: 'frame', frame: value as Frame });

const BARE_TOOL = { name: 'bare', inputSchema: { type: 'object', properties: { v: { type: 'array' } } } };

/** An upstream that records the `_meta` of each tools/call and lists one tool with a bare array. */
function fakeUpstream(metas: JsonObject[], remote: boolean): UpstreamConnection {
  const bare = (params: JsonObject) => {
    metas.push(params['_meta'] as JsonObject);
    return { content: [] };
  };
  return createFakeUpstream({ toolList: [BARE_TOOL], tools: { bare }, remote }).connection;
}

/** The `initialize` of a client that says all of `Implementation` and roots.listChanged. */
const CLIENT_INFO = {
  name: 'codex-mcp-client',
  version: '0.50.0',
  title: 'Codex',
  description: 'The Codex CLI',
  websiteUrl: 'https://example.com/codex',
  icons: [{ src: 'https://example.com/codex.png', mimeType: 'image/png', sizes: ['48x48'] }],
};

/** The `_meta` of the tools/call: keys of VS Code, Codex and Claude Code, and reserved ones. */
const CLIENT_META = {
  traceparent: '00-t-s-01',
  'vscode.conversationId': 'c-1',
  'x-codex-turn-metadata': { turn: 3 },
  threadId: 'th-1',
  'claudecode/toolUseId': 'toolu_01',
  'io.modelcontextprotocol/clientInfo': { name: 'spoofed', version: '9' },
  'io.modelcontextprotocol/whatever': 1,
  'dev.mcp/x': 1,
  'bad key': 1,
};

function session(profile: Profile, remote = false) {
  const metas: JsonObject[] = [];
  const out: Frame[] = [];
  const lines$ = new Subject<Inbound>();
  createProfileBridge(
    profile,
    { version: '1.0.0', limits: DEFAULT_LIMITS },
    {
      connect: () => of(fakeUpstream(metas, remote)),
      logger: silentLogger,
    },
  )(lines$).subscribe((value) => out.push(value));
  lines$.next(
    frame({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: { roots: { listChanged: true } },
        clientInfo: CLIENT_INFO,
      },
    }),
  );
  lines$.next(frame({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  lines$.next(
    frame({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: {
        name: 'bare',
        arguments: {},
        _meta: CLIENT_META,
      },
    }),
  );
  lines$.next(frame({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
  const listed = out.find((value) => 'id' in value && value.id === 3) as
    { result: { tools: JsonObject[] } } | undefined;
  return { metas, tools: listed?.result.tools };
}

describe('createProfileBridge', () => {
  it('the VS Code profile passes only the trace keys and vscode.* keys, the name and version, roots: {}', () => {
    const vscode = session(vscodeProfile);
    expect(vscode.metas).toEqual([
      {
        traceparent: '00-t-s-01',
        'vscode.conversationId': 'c-1',
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'codex-mcp-client', version: '0.50.0' },
        'io.modelcontextprotocol/clientCapabilities': { roots: {} },
      },
    ]);
  });

  it('the generic profile passes every unreserved _meta key, the full clientInfo and roots.listChanged', () => {
    const generic = session(genericProfile);
    expect(generic.metas).toEqual([
      {
        traceparent: '00-t-s-01',
        'vscode.conversationId': 'c-1',
        'x-codex-turn-metadata': { turn: 3 },
        threadId: 'th-1',
        'claudecode/toolUseId': 'toolu_01',
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
        'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } },
      },
    ]);
  });

  it('the generic profile sends only data: icons of the client to a remote upstream', () => {
    const { icons, ...rest } = CLIENT_INFO;
    expect(icons).toHaveLength(1);
    expect(session(genericProfile, true).metas[0]?.['io.modelcontextprotocol/clientInfo']).toEqual(rest);
  });

  it('the items fix is a quirk of the VS Code profile only', () => {
    expect(session(vscodeProfile).tools).toEqual([
      { name: 'bare', inputSchema: { type: 'object', properties: { v: { type: 'array', items: {} } } } },
    ]);
    expect(session(genericProfile).tools).toEqual([BARE_TOOL]);
  });
});
