/**
 * Where `@napi-rs/keyring` loads from (src/oauth/store/keyringModule.ts): under a single
 * executable, from `node_modules` in the executable's folder (docs/install.md#install-executable).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKeyringModule } from '../../src/oauth/store/keyringModule.js';

const work = mkdtempSync(join(tmpdir(), 'keyring-place-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A folder with an executable and, when asked, a stand-in keyring module beside it. */
function folder(name: string, withModule: boolean): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  if (withModule) {
    const moduleDir = join(dir, 'node_modules/@napi-rs/keyring');
    mkdirSync(moduleDir, { recursive: true });
    writeFileSync(join(moduleDir, 'package.json'), '{"name":"@napi-rs/keyring","main":"index.js"}');
    writeFileSync(join(moduleDir, 'index.js'), "module.exports = { standIn: 'beside the executable' };");
  }
  return join(dir, 'mcp-bridge');
}

describe('the keyring module of a single executable', () => {
  it('loads from node_modules in the folder of the executable', async () => {
    const execPath = folder('with', true);
    const loaded = (await loadKeyringModule({ sea: true, execPath })) as unknown as { standIn: string };
    expect(loaded.standIn).toBe('beside the executable');
  });

  it('rejects, naming the folder it looked in, when the module is not there', async () => {
    const execPath = folder('without', false);
    await expect(loadKeyringModule({ sea: true, execPath })).rejects.toThrow(
      `not found beside the executable, in ${join(work, 'without', 'node_modules')} (Cannot find module '@napi-rs/keyring'`,
    );
  });
});
