/**
 * `logout` (docs/sign-in.md#sign-in-logout) against the file store in a
 * temporary directory and a fake keychain: lines and exit codes.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import { runLogout, type LogoutOptions } from '../../src/cli/logout.js';
import { openTokenStore } from '../../src/oauth/store/openStore.js';
import type { TokenStore } from '../../src/oauth/store/types.js';
import {
  fakeKeyring,
  KEY_A,
  KEY_B,
  makeRecord,
  recordingLogger,
  SERVER_URL,
  useTokenPlace,
  type FakeKeyring,
  type RecordingLogger,
} from './storeTestKit.js';

const DEFAULT_ID = 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback';
const WORK_ID = 'mcp-bridge-vscode|work|http://127.0.0.1:41894/callback';
const NO_DBUS = 'DBus error: no session bus';

let root: string;
let dir: string;
let logger: RecordingLogger;
let keyring: FakeKeyring;
useTokenPlace((place) => ({ root, dir, logger } = place));
beforeEach(() => {
  keyring = fakeKeyring({ absent: NO_DBUS });
});

const logoutOptions = (overrides: Partial<LogoutOptions>): LogoutOptions => ({
  url: SERVER_URL,
  all: false,
  account: 'default',
  redirectPort: 41894,
  tokenStore: 'file',
  // These tests are about the deletion; revocation.test.ts and e2eAccounts.test.ts revoke.
  noRevoke: true,
  logLevel: 'info',
  bridgeName: 'mcp-bridge-vscode',
  ...overrides,
});

const environment = (key = KEY_A) => ({
  env: { MCP_BRIDGE_TOKEN_KEY: key },
  directory: dir,
  loadKeyring: keyring.module,
});

async function fileStore(): Promise<TokenStore> {
  const opened = await openTokenStore(
    { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
    recordingLogger(),
  );
  if (!opened.ok) throw new Error(opened.message);
  return opened.store;
}

async function seed(): Promise<TokenStore> {
  const store = await fileStore();
  await store.write(makeRecord({ identity: DEFAULT_ID }));
  await store.write(makeRecord({ identity: `${DEFAULT_ID}|client=pre-registered` }));
  await store.write(makeRecord({ identity: WORK_ID }));
  await store.write(makeRecord({ url: 'https://other.example.test/mcp', identity: DEFAULT_ID }));
  return store;
}

describe('logout <url>', () => {
  it('deletes the records of the URL and account (also its client variants), and keeps the others', async () => {
    await seed();
    expect(await runLogout(logoutOptions({}), logger, environment())).toBe(0);
    expect(logger.lines).toEqual([
      'vscode: info: logout deleted the stored sign-in of the account "default". The next start signs in again',
    ]);
    const store = await fileStore();
    expect(await store.read({ url: SERVER_URL, identity: DEFAULT_ID })).toBeUndefined();
    expect(
      await store.read({ url: SERVER_URL, identity: `${DEFAULT_ID}|client=pre-registered` }),
    ).toBeUndefined();
    expect(await store.read({ url: SERVER_URL, identity: WORK_ID })).toBeDefined();
    expect(await store.read({ url: 'https://other.example.test/mcp', identity: DEFAULT_ID })).toBeDefined();
  });

  it('says so when there is nothing to delete, and exits 0', async () => {
    await seed();
    expect(await runLogout(logoutOptions({ account: 'nobody' }), logger, environment())).toBe(0);
    expect(logger.lines).toEqual([
      'vscode: info: logout found no stored sign-in of the account "nobody" for the URL',
    ]);
  });

  it('uses the redirect port of the identity', async () => {
    await seed();
    expect(await runLogout(logoutOptions({ redirectPort: 5555 }), logger, environment())).toBe(0);
    expect(logger.lines[0]).toContain('found no stored sign-in');
  });

  it('a forced file store with a wrong key exits 2 and deletes nothing', async () => {
    await seed();
    const before = (await readdir(dir)).sort();
    expect(await runLogout(logoutOptions({}), logger, environment(KEY_B))).toBe(2);
    expect(logger.lines).toEqual([
      `vscode: err: the token store did not open: the token key does not open the files in ${dir}: they were written with another key (nothing was deleted)`,
    ]);
    expect((await readdir(dir)).sort()).toEqual(before);
  });

  it('auto skips a keychain that does not open, and names the file store it cannot open without a key', async () => {
    await seed();
    const code = await runLogout(logoutOptions({ tokenStore: 'auto' }), logger, {
      env: {},
      directory: dir,
      loadKeyring: keyring.module,
    });
    expect(code).toBe(0);
    expect(logger.lines).toEqual([
      `vscode: warn: logout skips the keychain store: the keychain is not available (${NO_DBUS})`,
      'vscode: warn: logout skips the file store: no token key is set (MCP_BRIDGE_TOKEN_KEY or --token-key-file)',
      'vscode: info: logout found no stored sign-in of the account "default" for the URL',
    ]);
  });

  it('exits 1 when a deletion fails in a store', async () => {
    const working = fakeKeyring();
    const opened = await openTokenStore(
      {
        tokenStore: 'keychain',
        env: {},
        service: 'mcp-bridge-sdk/mcp-bridge-vscode',
        directory: dir,
        loadKeyring: working.module,
      },
      recordingLogger(),
    );
    if (!opened.ok) throw new Error(opened.message);
    await opened.store.write(makeRecord());
    working.fail = true;
    const code = await runLogout(logoutOptions({ tokenStore: 'keychain' }), logger, {
      env: {},
      directory: dir,
      loadKeyring: working.module,
    });
    expect(code).toBe(1);
    expect(logger.lines).toEqual([
      'vscode: err: logout failed in the keychain store: the keychain failed: the keychain is locked',
    ]);
  });

  it('a forced memory store has nothing to delete', async () => {
    expect(await runLogout(logoutOptions({ tokenStore: 'memory' }), logger, environment())).toBe(0);
    expect(logger.lines).toEqual([
      'vscode: info: the memory store keeps no sign-in after the end of the process: logout has nothing to delete',
    ]);
  });
});

describe('logout --all', () => {
  it('deletes every record in each store and the token directory', async () => {
    await seed();
    const inKeychain = fakeKeyring();
    const opened = await openTokenStore(
      {
        tokenStore: 'keychain',
        env: {},
        service: 'mcp-bridge-sdk/mcp-bridge-vscode',
        directory: root,
        loadKeyring: inKeychain.module,
      },
      recordingLogger(),
    );
    if (!opened.ok) throw new Error(opened.message);
    await opened.store.write(makeRecord({ identity: 'mcp-bridge-vscode|k|http://127.0.0.1:41894/callback' }));
    const { url: _url, ...withoutUrl } = logoutOptions({ all: true, tokenStore: 'auto' });
    const code = await runLogout(withoutUrl, logger, {
      env: { MCP_BRIDGE_TOKEN_KEY: KEY_A },
      directory: dir,
      loadKeyring: inKeychain.module,
    });
    expect(code).toBe(0);
    expect(logger.lines).toEqual([
      'vscode: info: logout deleted 5 stored sign-ins',
      `vscode: info: deleted the token directory ${dir}`,
    ]);
    expect(existsSync(dir)).toBe(false);
    expect(inKeychain.secrets.size).toBe(0);
  });

  it('with a URL exits 2', async () => {
    expect(await runLogout(logoutOptions({ all: true }), logger, environment())).toBe(2);
    expect(logger.lines).toEqual([
      'vscode: err: the option --all cannot be used here: it excludes the URL and --account',
    ]);
  });

  it('without the URL and without --all exits 2', async () => {
    const { url: _url, ...rest } = logoutOptions({});
    expect(await runLogout({ ...rest }, logger, environment())).toBe(2);
    expect(logger.lines).toEqual([
      'vscode: err: the URL of the upstream server is missing: give it after the options of logout, or give --all',
    ]);
  });
});
