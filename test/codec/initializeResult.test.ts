import { describe, expect, it } from 'vitest';
import { buildInitializeResult, fallbackServerName } from '../../src/codec/initializeResult.js';
import type { JsonObject } from '../../src/protocol/jsonrpc.js';
import { findModernLeaks, validateDefinition } from '../helpers/schemas.js';

const opts = { fallbackName: 'files-server', bridgeVersion: '0.1.0', remote: false };
const discover = (serverInfo: unknown, extra: Record<string, unknown> = {}): JsonObject =>
  ({
    resultType: 'complete',
    supportedVersions: ['2026-07-28'],
    ttlMs: 1000,
    cacheScope: 'public',
    capabilities: { tools: { listChanged: true }, logging: {} },
    _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo },
    ...extra,
  }) as JsonObject;

describe('buildInitializeResult', () => {
  it('answers with revision 2025-11-25, the capabilities, serverInfo and instructions only', () => {
    const result = buildInitializeResult(
      discover({ name: 'Files', version: '2.0.0', title: 'Files', extra: 1 }, { instructions: 'Use it.' }),
      opts,
    );
    expect(result).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: { tools: { listChanged: true }, logging: {} },
      serverInfo: { name: 'Files', version: '2.0.0', title: 'Files' },
      instructions: 'Use it.',
    });
    expect(validateDefinition('2025-11-25', 'InitializeResult', result)).toEqual([]);
    expect(findModernLeaks(result)).toEqual([]);
  });

  it('keeps name, title, version, icons, description and websiteUrl of the serverInfo', () => {
    const info = {
      name: 'n',
      title: 't',
      version: '1',
      description: 'd',
      websiteUrl: 'https://example.com',
      icons: [{ src: 'https://example.com/i.png' }, { src: 'file:///i.png' }],
    };
    expect(buildInitializeResult(discover(info), opts)['serverInfo']).toEqual(info);
  });

  it('keeps only data: icons of the serverInfo for a remote upstream', () => {
    const icons = [{ src: 'https://example.com/i.png' }, { src: 'DATA:image/png;base64,AA==' }];
    const remote = buildInitializeResult(discover({ name: 'n', version: '1', icons }), {
      ...opts,
      remote: true,
    });
    expect(remote['serverInfo']).toEqual({
      name: 'n',
      version: '1',
      icons: [{ src: 'DATA:image/png;base64,AA==' }],
    });
    const none = buildInitializeResult(discover({ name: 'n', version: '1', icons: [icons[0]] }), {
      ...opts,
      remote: true,
    });
    expect(none['serverInfo']).toEqual({ name: 'n', version: '1' });
  });

  it.each([
    ['no serverInfo', undefined],
    ['an empty name', { name: '', version: '1' }],
    ['no version', { name: 'n' }],
    ['a name that is not a string', { name: 5, version: '1' }],
  ])('uses the fallback name and the bridge version for %s', (_name, info) => {
    expect(buildInitializeResult(discover(info), opts)['serverInfo']).toEqual({
      name: 'files-server',
      version: '0.1.0',
    });
  });

  it('never sends an empty serverInfo name, and drops instructions that are not a string', () => {
    const result = buildInitializeResult({ instructions: 5 }, { ...opts, fallbackName: '' });
    expect(result).toEqual({
      protocolVersion: '2025-11-25',
      capabilities: {},
      serverInfo: { name: 'mcp-bridge-vscode', version: '0.1.0' },
    });
  });
});

describe('fallbackServerName', () => {
  const profileName = 'mcp-bridge-vscode';

  it.each([
    [{ name: 'Mine', command: '/bin/x' }, 'Mine'],
    [{ command: '/opt/mcp/bin/files-server.exe' }, 'files-server'],
    [{ command: 'C:\\Program Files\\mcp\\files-server.exe' }, 'files-server'],
    [{ command: 'npx' }, 'npx'],
    [{ command: './.hidden' }, '.hidden'],
    [{ url: 'https://mcp.example.com:8443/mcp' }, 'mcp.example.com'],
    [{ url: 'not a url' }, profileName],
    [{ name: '  ', command: '' }, profileName],
    [{}, profileName],
  ])('gives the name for %j', (input, expected) => {
    expect(fallbackServerName({ ...input, profileName })).toBe(expected);
  });

  it('is never empty', () => {
    expect(fallbackServerName({ profileName: '' })).toBe('mcp-bridge-vscode');
  });
});
