/**
 * `npm run test:sea` (docs/install.md#install-executable, docs/testing.md): the process tests
 * run against the single executables of `dist/sea/` instead of `node dist/bin/<name>.js` when
 * MCP_BRIDGE_SEA_DIR names that folder. spawnPeer (rawPeer.ts) swaps each `node <bundle> …` for
 * `<folder>/<name>-<platform>-<arch> …`; an executable that is not there is an error, never a
 * quiet fall-back to the bundle.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';

const BUNDLES = new Set(['mcp-bridge-vscode.js', 'mcp-bridge.js']);

/** The command that `spawnPeer(cmd, args)` runs, given the folder of the executables (or none). */
export function seaCommand(
  cmd: string,
  args: readonly string[],
  folder: string | undefined = process.env['MCP_BRIDGE_SEA_DIR'],
): { cmd: string; args: readonly string[] } {
  const [main, ...rest] = args;
  if (folder === undefined || folder === '' || cmd !== process.execPath || main === undefined)
    return { cmd, args };
  if (!BUNDLES.has(basename(main)) || !main.includes('/dist/bin/')) return { cmd, args };
  const suffix = process.platform === 'win32' ? '.exe' : '';
  const executable = join(folder, `${basename(main, '.js')}-${process.platform}-${process.arch}${suffix}`);
  if (!existsSync(executable))
    throw new Error(`MCP_BRIDGE_SEA_DIR: no ${executable} (run npm run build:sea)`);
  return { cmd: executable, args: rest };
}
