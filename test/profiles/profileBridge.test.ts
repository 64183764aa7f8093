/**
 * The profile reaches the bridge through createProfileBridge (issue 14 deliverable 3): its
 * `_meta` pass-through narrows what travels upstream, its quirks shape `tools/list`.
 */
import { NEVER, Subject, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { silentLogger } from '../../src/bridge/log.js';
import type { ExchangeEvent, UpstreamConnection } from '../../src/bridge/upstream.js';
import { createProfileBridge, genericProfile, vscodeProfile } from '../../src/index.js';
import type { Profile } from '../../src/index.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';

const frame = (value: object): Inbound => ({ kind: 'frame', frame: value as Frame });

const BARE_TOOL = { name: 'bare', inputSchema: { type: 'object', properties: { v: { type: 'array' } } } };

/** An upstream that records the `_meta` of each tools/call and lists one tool with a bare array. */
function fakeUpstream(metas: JsonObject[]): UpstreamConnection {
  const reply = (result: JsonObject) =>
    of<ExchangeEvent>({
      type: 'response',
      frame: { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', ...result } },
    });
  return {
    request: (method, params) => {
      if (method === 'server/discover') return reply({ capabilities: { tools: {} } });
      if (method === 'tools/list') return reply({ tools: [BARE_TOOL] });
      metas.push(params['_meta'] as JsonObject);
      return reply({ content: [] });
    },
    notifications$: NEVER,
    exit$: NEVER,
    remote: false,
    close: () => undefined,
  };
}

function session(profile: Profile) {
  const metas: JsonObject[] = [];
  const out: Frame[] = [];
  const lines$ = new Subject<Inbound>();
  createProfileBridge(
    profile,
    { version: '1.0.0', limits: DEFAULT_LIMITS },
    {
      connect: () => of(fakeUpstream(metas)),
      logger: silentLogger,
    },
  )(lines$).subscribe((value) => out.push(value));
  lines$.next(
    frame({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
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
        _meta: { traceparent: '00-t-s-01', 'vscode.conversationId': 'c-1' },
      },
    }),
  );
  lines$.next(frame({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
  const listed = out.find((value) => 'id' in value && value.id === 3) as
    { result: { tools: JsonObject[] } } | undefined;
  return { metas, tools: listed?.result.tools };
}

describe('createProfileBridge', () => {
  it('the VS Code profile passes the vscode.* keys of _meta upstream; the generic one passes only the trace keys', () => {
    const vscode = session(vscodeProfile);
    expect(vscode.metas).toHaveLength(1);
    expect(vscode.metas[0]).toMatchObject({ traceparent: '00-t-s-01', 'vscode.conversationId': 'c-1' });
    const generic = session(genericProfile);
    expect(generic.metas).toHaveLength(1);
    expect(generic.metas[0]).toMatchObject({ traceparent: '00-t-s-01' });
    expect(generic.metas[0]).not.toHaveProperty('vscode.conversationId');
  });

  it('the items fix is a quirk of the VS Code profile only', () => {
    expect(session(vscodeProfile).tools).toEqual([
      { name: 'bare', inputSchema: { type: 'object', properties: { v: { type: 'array', items: {} } } } },
    ]);
    expect(session(genericProfile).tools).toEqual([BARE_TOOL]);
  });
});
