/**
 * `npm run build:mcpb`: the Claude Desktop bundle `dist/mcp-bridge.mcpb` (docs/install.md#install-mcpb),
 * from the executable bundle of `npm run build` (dist/bin, which needs no node_modules):
 *
 * - `server/`: `mcp-bridge.js`, the entry it loads and the chunks, and `index.js`, the entry (src/cli/mcpbEntry.ts)
 *   that turns the form's values into the bridge's command line;
 * - `manifest.json`: the form (`user_config`) and how Claude Desktop starts the entry with its
 *   own Node.js, each value in a variable of the environment (src/cli/mcpbConfig.ts);
 * - zipped and checked by `mcpb pack` of @anthropic-ai/mcpb, which validates the manifest.
 *
 * The optional keychain module (@napi-rs/keyring, native) is not in the bundle: a sign-in keeps
 * its tokens in encrypted files when the form has a token key, else in memory.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { MCPB_ENV } from '../src/cli/mcpbConfig.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const stage = join(root, 'dist/mcpb');
const output = join(root, 'dist/mcp-bridge.mcpb');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

/** The form of the bundle: what a user of a `--` command or a URL sets. */
const USER_CONFIG = {
  upstream: {
    type: 'string',
    title: 'Upstream server',
    description:
      'The URL of an MCP 2026-07-28 server (https, or http for localhost), or the command that starts one, with its arguments separated by blanks ("…" keeps blanks).',
    required: true,
  },
  header_name: {
    type: 'string',
    title: 'Header name',
    description:
      'URL only: the name of a header sent with every request, such as Authorization or X-Api-Key.',
    required: false,
  },
  header_value: {
    type: 'string',
    title: 'Header value',
    description:
      'URL only: its value (kept in the keychain), such as "Bearer <token>". Leave empty to sign in with OAuth.',
    required: false,
    sensitive: true,
  },
  account: {
    type: 'string',
    title: 'Account',
    description: 'URL only: a name for one of several sign-ins to the same server (default: default).',
    required: false,
  },
  token_store: {
    type: 'string',
    title: 'Token store',
    description:
      'URL only: auto, file or memory (default: auto: encrypted files with a token key, else memory).',
    required: false,
  },
  token_key: {
    type: 'string',
    title: 'Token key',
    description: 'URL only: 64 hex digits that encrypt the stored sign-in (kept in the keychain).',
    required: false,
    sensitive: true,
  },
  log_level: {
    type: 'string',
    title: 'Log level',
    description: 'err, warn, info or debug (default: info).',
    required: false,
  },
} as const;

const FIELD_ENV: Record<keyof typeof USER_CONFIG, string> = {
  upstream: MCPB_ENV.upstream,
  header_name: MCPB_ENV.headerName,
  header_value: MCPB_ENV.headerValue,
  account: MCPB_ENV.account,
  token_store: MCPB_ENV.tokenStore,
  token_key: MCPB_ENV.tokenKey,
  log_level: MCPB_ENV.logLevel,
};

export const manifest = {
  manifest_version: '0.3',
  name: 'mcp-bridge',
  display_name: 'MCP bridge to 2026-07-28 servers',
  version,
  description: 'Connects Claude Desktop to an MCP server of revision 2026-07-28, by URL or command.',
  author: { name: 'the mcp-bridge-sdk authors' },
  license: 'Apache-2.0',
  server: {
    type: 'node',
    entry_point: 'server/index.js',
    mcp_config: {
      command: 'node',
      args: ['${__dirname}/server/index.js'],
      env: Object.fromEntries(
        Object.entries(FIELD_ENV).map(([field, name]) => [name, `\${user_config.${field}}`]),
      ),
    },
  },
  user_config: USER_CONFIG,
  compatibility: { platforms: ['darwin', 'win32', 'linux'], runtimes: { node: '>=20.19.0' } },
};

rmSync(stage, { recursive: true, force: true });
rmSync(output, { force: true });
mkdirSync(join(stage, 'server'), { recursive: true });
// mcp-bridge.js selects its profile and loads mcp-bridge-vscode.js, the shared CLI entry.
for (const file of ['mcp-bridge.js', 'mcp-bridge-vscode.js']) {
  cpSync(join(root, 'dist/bin', file), join(stage, 'server', file));
}
cpSync(join(root, 'dist/bin/chunks'), join(stage, 'server/chunks'), { recursive: true });
for (const file of ['LICENSE', 'NOTICE']) cpSync(join(root, file), join(stage, file));
await build({
  entryPoints: [join(root, 'dist/src/cli/mcpbEntry.js')],
  outfile: join(stage, 'server/index.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
});
writeFileSync(join(stage, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
// The package exports no package.json: its CLI sits in node_modules.
const cli = join(root, 'node_modules/@anthropic-ai/mcpb/dist/cli/cli.js');
const packed = spawnSync(process.execPath, [cli, 'pack', stage, output], { encoding: 'utf8' });
if (packed.status !== 0) {
  process.stderr.write(packed.stdout + packed.stderr);
  process.exit(1);
}
process.stdout.write(`${output}\n`);
