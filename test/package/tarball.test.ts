/**
 * The install path of a user ("Install paths, tested"): `npm pack` of the built project,
 * the tarball installed into an empty folder, then the INSTALLED `mcp-bridge-vscode` (the launcher
 * npm puts in `node_modules/.bin`) run for `--version` and for a short session of the real
 * `@modelcontextprotocol/sdk` 1.x `Client` in both forms: `-- <command>` in front of the fixture
 * server, and a URL in front of the HTTP fixture.
 * Needs the build (`npm run build`): packing runs no `prepack` here, so that the suite never
 * rebuilds the `dist/` the other process tests are running.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import crossSpawn from 'cross-spawn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE } from '../helpers/bridgeProcess.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import { bridgeEnv } from '../process/httpSupport.js';
import { ROOT, manifest, npm } from './support.js';

let dir: string;
/** The installed launcher, as a user's `mcp.json` or shell reaches it. */
let installed: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-tarball-'));
  npm(['pack', '--pack-destination', dir], ROOT);
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error('npm pack wrote no tarball');
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
  // The dependencies are in npm's cache after `npm ci`: no network round trip when it is warm.
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball)], app, 90_000);
  installed = join(app, 'node_modules', '.bin', 'mcp-bridge-vscode');
}, 120_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A 1.x client through the installed executable with `args`; the caller closes it. */
async function connect(args: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: installed,
    args,
    env: bridgeEnv() as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'tarball-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const firstText = (result: Awaited<ReturnType<Client['callTool']>>): string => {
  const [first] = result.content as { type: string; text?: string }[];
  return first?.text ?? '';
};

describe('the packed and installed package', () => {
  it('runs `mcp-bridge-vscode --version` from node_modules/.bin', () => {
    const result = crossSpawn.sync(installed, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(`mcp-bridge-vscode ${manifest().version}\n`);
  });

  it('imports the public entries from the installed package; embed names its optional peer', () => {
    const source = [
      "const names = ['mcp-bridge-sdk', 'mcp-bridge-sdk/operators', 'mcp-bridge-sdk/testing', 'mcp-bridge-sdk/embed'];",
      'for (const name of names) {',
      '  try { console.log(name, Object.keys(await import(name)).length > 0); }',
      '  catch (error) { console.log(name, error.code, /@modelcontextprotocol\\/server/.test(error.message)); }',
      '}',
    ].join('\n');
    const result = crossSpawn.sync(process.execPath, ['--input-type=module', '-e', source], {
      cwd: join(dir, 'app'),
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    // `mcp-bridge-sdk/embed` serves a server of `@modelcontextprotocol/server` 2.x, an optional peer
    // dependency that this install (like a user's who only runs the executable) does not have.
    expect(result.stdout.trim().split('\n')).toEqual([
      'mcp-bridge-sdk true',
      'mcp-bridge-sdk/operators true',
      'mcp-bridge-sdk/testing true',
      'mcp-bridge-sdk/embed ERR_MODULE_NOT_FOUND true',
    ]);
  });

  it('bridges a 1.x client to the fixture server in the `-- <command>` form', async () => {
    const client = await connect(['--', process.execPath, FIXTURE]);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'bridge-fixture-server' });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      expect(
        firstText(await client.callTool({ name: 'echo', arguments: { text: 'from the tarball' } })),
      ).toBe('from the tarball');
    } finally {
      await client.close();
    }
  });

  it('bridges a 1.x client to the HTTP fixture in the URL form (the lazily loaded HTTP chunk ships)', async () => {
    let fixture: HttpFixture | undefined;
    let client: Client | undefined;
    try {
      fixture = await startHttpFixture();
      client = await connect([fixture.url]);
      expect(client.getServerVersion()).toMatchObject({ name: 'bridge-fixture-server' });
      expect(firstText(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } }))).toBe('42');
    } finally {
      await client?.close();
      await fixture?.close();
    }
  });
});
