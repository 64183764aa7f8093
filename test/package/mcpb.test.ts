/**
 * The Claude Desktop bundle of `npm run build:mcpb` (scripts/mcpb.ts, docs/install.md#install-mcpb):
 * `mcpb validate` (of @anthropic-ai/mcpb, the bundle format's own tool) passes on its manifest, and
 * unpacked, its entry started as the manifest says, with the form's values, is a bridge that
 * answers `initialize`. Needs the build (`npm run build`); builds the bundle itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE, handshake } from '../helpers/bridgeProcess.js';
import { spawnPeer } from '../helpers/rawPeer.js';
import { ROOT } from './support.js';

const MCPB = `${ROOT}node_modules/@anthropic-ai/mcpb/dist/cli/cli.js`;
const unpacked = mkdtempSync(join(tmpdir(), 'mcpb-'));

interface Manifest {
  server: {
    entry_point: string;
    mcp_config: { command: string; args: string[]; env: Record<string, string> };
  };
  user_config: Record<string, { type: string; required: boolean; sensitive?: boolean }>;
}

beforeAll(() => {
  const built = spawnSync(process.execPath, [`${ROOT}dist/scripts/mcpb.js`], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(built.stderr).toBe('');
  expect(built.status).toBe(0);
  const unpack = spawnSync(process.execPath, [MCPB, 'unpack', `${ROOT}dist/mcp-bridge.mcpb`, unpacked], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(unpack.status).toBe(0);
}, 120_000);
afterAll(() => rmSync(unpacked, { recursive: true, force: true }));

const manifest = (): Manifest =>
  JSON.parse(readFileSync(join(unpacked, 'manifest.json'), 'utf8')) as Manifest;

describe('mcp-bridge.mcpb', () => {
  it('passes mcpb validate', () => {
    const result = spawnSync(process.execPath, [MCPB, 'validate', join(unpacked, 'manifest.json')], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect([result.status, result.stdout.trim()]).toEqual([0, 'Manifest schema validation passes!']);
  });

  it('asks for the upstream, a header from a secret field, the account, the token store and key', () => {
    const fields = Object.entries(manifest().user_config).map(([name, field]) => [
      name,
      field.type,
      field.required,
      field.sensitive === true,
    ]);
    expect(fields).toEqual([
      ['upstream', 'string', true, false],
      ['header_name', 'string', false, false],
      ['header_value', 'string', false, true],
      ['account', 'string', false, false],
      ['token_store', 'string', false, false],
      ['token_key', 'string', false, true],
      ['log_level', 'string', false, false],
    ]);
    expect(manifest().server).toEqual({
      type: 'node',
      entry_point: 'server/index.js',
      mcp_config: {
        command: 'node',
        args: ['${__dirname}/server/index.js'],
        env: {
          MCP_BRIDGE_MCPB_UPSTREAM: '${user_config.upstream}',
          MCP_BRIDGE_MCPB_HEADER_NAME: '${user_config.header_name}',
          MCP_BRIDGE_MCPB_HEADER_VALUE: '${user_config.header_value}',
          MCP_BRIDGE_MCPB_ACCOUNT: '${user_config.account}',
          MCP_BRIDGE_MCPB_TOKEN_STORE: '${user_config.token_store}',
          MCP_BRIDGE_MCPB_TOKEN_KEY: '${user_config.token_key}',
          MCP_BRIDGE_MCPB_LOG_LEVEL: '${user_config.log_level}',
        },
      },
    });
  });

  it('unpacked, its entry started as the manifest says starts the bridge with the values of the form', async () => {
    const values: Record<string, string> = {
      upstream: `"${process.execPath}" "${FIXTURE}"`,
      log_level: 'debug',
    };
    // As Claude Desktop does: ${__dirname} and each ${user_config.<field>} replaced (empty when not set).
    const fill = (text: string): string =>
      text
        .replace('${__dirname}', unpacked)
        .replace(/\$\{user_config\.([a-z_]+)\}/g, (_, field: string) => values[field] ?? '');
    const { command, args, env } = manifest().server.mcp_config;
    expect(command).toBe('node');
    const peer = spawnPeer(process.execPath, args.map(fill), {
      ...process.env,
      ...Object.fromEntries(Object.entries(env).map(([name, value]) => [name, fill(value)])),
    });
    const response = await handshake(peer);
    expect(response).toMatchObject({ id: 1, result: { serverInfo: { name: 'bridge-fixture-server' } } });
    // The log level of the form reached the bridge: debug lines.
    expect(peer.stderr.some((line) => line.startsWith('mcp-bridge: bridge: debug: '))).toBe(true);
    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
  });
});
