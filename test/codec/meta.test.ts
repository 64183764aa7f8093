import { describe, expect, it } from 'vitest';
import {
  LEGACY_PROTOCOL_VERSION,
  PROTOCOL_VERSION,
  buildUpstreamMeta,
  forwardParams,
  isModernRequest,
  metaRule,
} from '../../src/codec/meta.js';
import { isReservedPrefix, isSpecReservedPrefix, parseMetaKey } from '../../src/protocol/metaKey.js';
import { REFERENCE_PASSTHROUGH } from '../../src/protocol/metaPassthrough.js';

const ctx = {
  clientInfo: { name: 'Visual Studio Code', version: '1.120.0' },
  clientCapabilities: { elicitation: { form: {} } },
};

describe('buildUpstreamMeta', () => {
  it('sets the protocol version, client info and client capabilities', () => {
    expect(buildUpstreamMeta(ctx, undefined)).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': ctx.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': ctx.clientCapabilities,
    });
    expect(PROTOCOL_VERSION).toBe('2026-07-28');
    expect(LEGACY_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  it('sets the stored log level, and a logLevel in the client _meta never overrides it', () => {
    const meta = buildUpstreamMeta(
      { ...ctx, logLevel: 'warning' },
      { 'io.modelcontextprotocol/logLevel': 'debug' },
    );
    expect(meta['io.modelcontextprotocol/logLevel']).toBe('warning');
    const none = buildUpstreamMeta(ctx, { 'io.modelcontextprotocol/logLevel': 'debug' });
    expect(none).not.toHaveProperty(['io.modelcontextprotocol/logLevel']);
  });

  it('passes traceparent, tracestate and valid vscode.* keys only', () => {
    const meta = buildUpstreamMeta(ctx, {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'congo=t61rcWkgMzE',
      baggage: 'a=b',
      'vscode.conversationId': 'c-1',
      'vscode.requestId': 'r-1',
      'vscode.ext/data': { nested: true },
      'com.example/x': 1,
      other: 2,
    });
    expect(Object.keys(meta).filter((key) => !key.startsWith('io.'))).toEqual([
      'traceparent',
      'tracestate',
      'vscode.conversationId',
      'vscode.requestId',
      'vscode.ext/data',
    ]);
  });

  it.each([
    ['a space', 'vscode.bad key'],
    ['a reserved label mcp', 'vscode.mcp/x'],
    ['a reserved label modelcontextprotocol', 'vscode.modelcontextprotocol/x'],
    ['a trailing dot', 'vscode.'],
    ['an empty label', 'vscode..x/y'],
    ['a name ending in a hyphen', 'vscode.a/b-'],
  ])('drops a vscode key with %s', (_name, key) => {
    expect(buildUpstreamMeta(ctx, { [key]: 1 })).not.toHaveProperty([key]);
  });

  it('never copies progressToken (the connection sets the upstream id)', () => {
    expect(buildUpstreamMeta(ctx, { progressToken: 0 })).not.toHaveProperty(['progressToken']);
  });

  it('drops trace keys that are not strings', () => {
    expect(buildUpstreamMeta(ctx, { traceparent: 5 })).not.toHaveProperty(['traceparent']);
  });
});

describe('buildUpstreamMeta with the rule of the generic profile (unreserved)', () => {
  const open = metaRule({ ...REFERENCE_PASSTHROUGH, keys: [], prefixes: [], unreserved: true });

  it("passes the client's own keys (Codex, Claude Code, W3C) next to the bridge's", () => {
    const meta = buildUpstreamMeta(
      ctx,
      {
        'x-codex-turn-metadata': { turn: 3, cwd: '/w' },
        threadId: 'th-1',
        'claudecode/toolUseId': 'toolu_01',
        'com.example.mcp/x': [1],
        'vscode.conversationId': 'c-1',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
        baggage: 'userId=alice',
      },
      open,
    );
    expect(meta).toEqual({
      'x-codex-turn-metadata': { turn: 3, cwd: '/w' },
      threadId: 'th-1',
      'claudecode/toolUseId': 'toolu_01',
      'com.example.mcp/x': [1],
      'vscode.conversationId': 'c-1',
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      baggage: 'userId=alice',
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': ctx.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': ctx.clientCapabilities,
    });
  });

  it('drops reserved keys, progressToken, invalid keys and non-string trace keys; the bridge keys win', () => {
    const meta = buildUpstreamMeta(
      { ...ctx, logLevel: 'error' },
      {
        'io.modelcontextprotocol/clientInfo': { name: 'spoofed', version: '9' },
        'io.modelcontextprotocol/protocolVersion': '2025-06-18',
        'io.modelcontextprotocol/logLevel': 'debug',
        'io.modelcontextprotocol/whatever': 1,
        'dev.mcp/x': 1,
        'org.modelcontextprotocol.api/x': 1,
        progressToken: 7,
        'bad key': 1,
        'a/b/c': 1,
        tracestate: 5,
      },
      open,
    );
    expect(meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': ctx.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': ctx.clientCapabilities,
      'io.modelcontextprotocol/logLevel': 'error',
    });
  });

  it('decides a key the same way the second time (the remembered decision)', () => {
    for (let i = 0; i < 2; i++) {
      expect(open('threadId', 'x')).toBe(true);
      expect(open('dev.mcp/x', 'x')).toBe(false);
      expect(open('baggage', 1)).toBe(false);
      expect(open('baggage', 'a=b')).toBe(true);
    }
  });

  it('the reference rule passes no Codex or Claude Code key', () => {
    const reference = metaRule(REFERENCE_PASSTHROUGH);
    expect(reference('x-codex-turn-metadata', {})).toBe(false);
    expect(reference('threadId', 'th-1')).toBe(false);
    expect(reference('claudecode/toolUseId', 'toolu_01')).toBe(false);
    expect(reference('baggage', 'a=b')).toBe(false);
    expect(reference('vscode.requestId', 'r-1')).toBe(true);
  });
});

describe('parseMetaKey', () => {
  it.each([
    ['name', { labels: [], name: 'name' }],
    ['', { labels: [], name: '' }],
    ['com.example/', { labels: ['com', 'example'], name: '' }],
    ['io.modelcontextprotocol/ui', { labels: ['io', 'modelcontextprotocol'], name: 'ui' }],
    ['a-b.c9/x_y.z', { labels: ['a-b', 'c9'], name: 'x_y.z' }],
  ])('accepts %j', (key, parsed) => {
    expect(parseMetaKey(key)).toEqual(parsed);
  });

  it.each(['9abc/x', '-a/x', 'a-/x', 'a/b/c', 'a/_x', 'a/x_', '.x', 'x y'])('refuses %j', (key) => {
    expect(parseMetaKey(key)).toBeUndefined();
  });

  it('treats a prefix with a label mcp or modelcontextprotocol as reserved', () => {
    expect(isReservedPrefix(parseMetaKey('dev.mcp/x')!)).toBe(true);
    expect(isReservedPrefix(parseMetaKey('org.modelcontextprotocol.api/x')!)).toBe(true);
    expect(isReservedPrefix(parseMetaKey('com.example/x')!)).toBe(false);
  });

  it('treats a prefix whose second label is mcp or modelcontextprotocol as reserved by 2026-07-28', () => {
    expect(isSpecReservedPrefix(parseMetaKey('io.modelcontextprotocol/x')!)).toBe(true);
    expect(isSpecReservedPrefix(parseMetaKey('com.mcp.tools/x')!)).toBe(true);
    expect(isSpecReservedPrefix(parseMetaKey('IO.MCP/x')!)).toBe(true);
    expect(isSpecReservedPrefix(parseMetaKey('com.example.mcp/x')!)).toBe(false);
    expect(isSpecReservedPrefix(parseMetaKey('claudecode/toolUseId')!)).toBe(false);
    expect(isSpecReservedPrefix(parseMetaKey('threadId')!)).toBe(false);
  });
});

describe('forwardParams', () => {
  it('copies the params without task and _meta', () => {
    const params = { name: 't', arguments: { a: 1 }, task: {}, _meta: { progressToken: 1 } };
    expect(forwardParams(params)).toEqual({ name: 't', arguments: { a: 1 } });
    expect(params).toHaveProperty('task');
  });

  it('gives {} without params', () => {
    expect(forwardParams(undefined)).toEqual({});
  });

  it('keeps a member named __proto__ as an own member', () => {
    const params = JSON.parse('{"arguments":{},"__proto__":{"x":1}}') as Record<string, never>;
    expect(Object.keys(forwardParams(params))).toEqual(['arguments', '__proto__']);
  });
});

describe('isModernRequest', () => {
  it('is true only with io.modelcontextprotocol/protocolVersion in params._meta', () => {
    expect(isModernRequest({ _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } })).toBe(
      true,
    );
    expect(isModernRequest({ _meta: { progressToken: 1 } })).toBe(false);
    expect(isModernRequest({ _meta: 'x' })).toBe(false);
    expect(isModernRequest(undefined)).toBe(false);
    expect(isModernRequest([])).toBe(false);
  });
});
