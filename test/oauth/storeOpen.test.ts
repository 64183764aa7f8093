/**
 * openTokenStore (docs/sign-in.md#sign-in-stores): the order of `auto`,
 * the hand-over of a store that fails later, forced stores that do not open, and the token key.
 */
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openTokenStore, type StoreOptions } from '../../src/oauth/store/openStore.js';
import {
  fakeKeyring,
  KEY_A,
  KEY_B,
  makeRecord,
  useTokenPlace,
  type RecordingLogger,
} from './storeTestKit.js';

const SERVICE = 'mcp-bridge-sdk/mcp-bridge-vscode';
const NO_DBUS = 'DBus error: no session bus';
let root: string;
let dir: string;
let logger: RecordingLogger;
useTokenPlace((place) => ({ root, dir, logger } = place));

const options = (overrides: Partial<StoreOptions>): StoreOptions => ({
  tokenStore: 'auto',
  env: {},
  service: SERVICE,
  directory: dir,
  loadKeyring: fakeKeyring({ absent: NO_DBUS }).module,
  ...overrides,
});

async function open(overrides: Partial<StoreOptions>) {
  const opened = await openTokenStore(options(overrides), logger);
  if (!opened.ok) throw new Error(`did not open: ${opened.message}`);
  return opened;
}

describe('openTokenStore auto', () => {
  it('uses the keychain first', async () => {
    const keyring = fakeKeyring();
    const { store } = await open({ loadKeyring: keyring.module, env: { MCP_BRIDGE_TOKEN_KEY: KEY_A } });
    expect(store.kind).toBe('keychain');
    expect(logger.lines).toEqual([
      'tokens: info: the tokens are in the keychain of the host (service "mcp-bridge-sdk/mcp-bridge-vscode")',
    ]);
    await store.write(makeRecord());
    expect([...keyring.secrets.values()].some((secret) => secret.includes('access-token-9f3b2c'))).toBe(true);
    // The account is a hash: the URL is in no keychain name.
    expect(
      [...keyring.secrets.keys()].every((name) =>
        /^mcp-bridge-sdk\/mcp-bridge-vscode\/[0-9a-f]{64}$/.test(name),
      ),
    ).toBe(true);
  });

  it('uses the encrypted files when the keychain is not available and a key is set', async () => {
    const { store } = await open({ env: { MCP_BRIDGE_TOKEN_KEY: ` ${KEY_A}\n` } });
    expect(store.kind).toBe('file');
    expect(logger.lines).toEqual([
      `tokens: info: the keychain is not available (${NO_DBUS})`,
      `tokens: info: the tokens are in encrypted files in ${dir}`,
    ]);
  });

  it('keeps the tokens in memory without keychain and key, and says why', async () => {
    const { store } = await open({});
    expect(store.kind).toBe('memory');
    expect(logger.lines).toEqual([
      `tokens: info: the tokens stay in memory: the keychain is not available (${NO_DBUS}), and no token key is set (MCP_BRIDGE_TOKEN_KEY or --token-key-file). Each start needs a new sign-in`,
    ]);
  });

  it('names a missing keyring module as the reason', async () => {
    const { store } = await open({
      loadKeyring: () => Promise.reject(new Error("Cannot find package '@napi-rs/keyring'")),
    });
    expect(store.kind).toBe('memory');
    expect(logger.lines[0]).toContain(
      "the keychain is not available (the module @napi-rs/keyring is not installed (Cannot find package '@napi-rs/keyring'))",
    );
  });

  it('falls to memory with a warning when the key does not open the files', async () => {
    await open({ tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A } });
    logger.lines.length = 0;
    const { store } = await open({ env: { MCP_BRIDGE_TOKEN_KEY: KEY_B } });
    expect(store.kind).toBe('memory');
    expect(logger.lines[0]).toBe(
      `tokens: warn: the file store did not start: the token key does not open the files in ${dir}: they were written with another key (nothing was deleted)`,
    );
  });

  it('hands over from a failing keychain to the files for the rest of the process', async () => {
    const keyring = fakeKeyring();
    const { store } = await open({ loadKeyring: keyring.module, env: { MCP_BRIDGE_TOKEN_KEY: KEY_A } });
    keyring.fail = true;
    await store.write(makeRecord());
    expect(store.kind).toBe('file');
    expect(logger.lines[1]).toBe(
      `tokens: warn: the keychain store failed (the keychain failed: the keychain is locked): for the rest of the process the tokens are in encrypted files in ${dir}`,
    );
    keyring.fail = false;
    const calls = keyring.calls;
    expect((await store.read(makeRecord()))?.accessToken).toBe('access-token-9f3b2c');
    expect(keyring.calls).toBe(calls); // the keychain is not asked again
    const files = await readdir(dir);
    expect(files.filter((name) => name.endsWith('.token')).length).toBe(2); // record and index
  });

  it('hands over from a failing keychain to memory when no key is set', async () => {
    const keyring = fakeKeyring();
    const { store } = await open({ loadKeyring: keyring.module });
    keyring.fail = true;
    expect(await store.read(makeRecord())).toBeUndefined();
    expect(store.kind).toBe('memory');
    await store.write(makeRecord());
    expect((await store.read(makeRecord()))?.accessToken).toBe('access-token-9f3b2c');
  });
});

describe('openTokenStore forced', () => {
  it('memory names itself', async () => {
    const { store } = await open({ tokenStore: 'memory', loadKeyring: fakeKeyring().module });
    expect(store.kind).toBe('memory');
    expect(logger.lines).toEqual(['tokens: info: the tokens stay in memory (--token-store memory)']);
  });

  it('keychain that does not open -> ok false with the cause', async () => {
    const opened = await openTokenStore(options({ tokenStore: 'keychain' }), logger);
    expect(opened).toEqual({
      ok: false,
      message: `the token store did not open: the keychain is not available (${NO_DBUS})`,
    });
  });

  it('file without a key -> ok false', async () => {
    const opened = await openTokenStore(options({ tokenStore: 'file' }), logger);
    expect(opened).toEqual({
      ok: false,
      message:
        'the token store did not open: --token-store file needs a key: set the environment variable MCP_BRIDGE_TOKEN_KEY, or give --token-key-file',
    });
  });

  it('file with a key that is not 64 hex digits -> ok false, the key never in the message', async () => {
    const opened = await openTokenStore(
      options({ tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: 'abc123-not-a-key' } }),
      logger,
    );
    expect(opened).toEqual({
      ok: false,
      message: 'the token store did not open: the token key MCP_BRIDGE_TOKEN_KEY does not hold 64 hex digits',
    });
  });

  it('file with a wrong key -> ok false, files kept', async () => {
    const first = await open({ tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A } });
    await first.store.write(makeRecord());
    const before = (await readdir(dir)).sort();
    const opened = await openTokenStore(
      options({ tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_B } }),
      logger,
    );
    expect(opened.ok).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(before);
  });
});

describe('token key file', () => {
  const keyFile = (): string => path.join(root, 'token.key');

  it('opens the files with a private key file', async () => {
    await writeFile(keyFile(), `${KEY_A}\n`, { mode: 0o600 });
    await chmod(keyFile(), 0o600);
    const { store } = await open({ tokenStore: 'file', tokenKeyFile: keyFile() });
    expect(store.kind).toBe('file');
  });

  it('refuses a key file open to other users (POSIX)', async () => {
    await writeFile(keyFile(), KEY_A);
    await chmod(keyFile(), 0o644);
    const opened = await openTokenStore(
      options({ tokenStore: 'file', tokenKeyFile: keyFile(), platform: 'linux' }),
      logger,
    );
    expect(opened).toEqual({
      ok: false,
      message: `the token store did not open: the token key file ${keyFile()} is open to other users: make it private to you (chmod 600)`,
    });
  });

  it('refuses a key file inside the token directory', async () => {
    await mkdir(dir, { recursive: true });
    const inside = path.join(dir, 'my.key');
    await writeFile(inside, KEY_A, { mode: 0o600 });
    await chmod(inside, 0o600);
    const opened = await openTokenStore(options({ tokenStore: 'file', tokenKeyFile: inside }), logger);
    expect(opened).toEqual({
      ok: false,
      message: `the token store did not open: the token key file ${inside} is inside the token directory: keep it elsewhere`,
    });
  });

  it('refuses a key file and MCP_BRIDGE_TOKEN_KEY together', async () => {
    await writeFile(keyFile(), KEY_A, { mode: 0o600 });
    const opened = await openTokenStore(
      options({ tokenStore: 'file', tokenKeyFile: keyFile(), env: { MCP_BRIDGE_TOKEN_KEY: KEY_B } }),
      logger,
    );
    expect(opened).toEqual({
      ok: false,
      message:
        'the token store did not open: both MCP_BRIDGE_TOKEN_KEY and --token-key-file give a token key: give one',
    });
  });

  it('refuses a key file without 64 hex digits, without its content in the message', async () => {
    await writeFile(keyFile(), 'not-a-key-5e5e', { mode: 0o600 });
    await chmod(keyFile(), 0o600);
    const opened = await openTokenStore(options({ tokenStore: 'file', tokenKeyFile: keyFile() }), logger);
    expect(opened).toEqual({
      ok: false,
      message: `the token store did not open: the token key file ${keyFile()} does not hold 64 hex digits`,
    });
  });
});

describe('openTokenStore auto with a keychain and an unusable key', () => {
  it('uses the keychain and warns about the key', async () => {
    const { store } = await open({
      loadKeyring: fakeKeyring().module,
      env: { MCP_BRIDGE_TOKEN_KEY: 'short' },
    });
    expect(store.kind).toBe('keychain');
    expect(logger.lines).toEqual([
      'tokens: info: the tokens are in the keychain of the host (service "mcp-bridge-sdk/mcp-bridge-vscode")',
      'tokens: warn: the token key is not usable: the token key MCP_BRIDGE_TOKEN_KEY does not hold 64 hex digits',
    ]);
  });
});

describe('the lock of the store', () => {
  const key = {
    url: 'https://mcp.example.test/mcp',
    identity: 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback',
  };
  const state = (): string => path.join(root, 'mcp-bridge-sdk', 'vscode');
  const platformOptions = (tokenStore: StoreOptions['tokenStore']): StoreOptions => ({
    tokenStore,
    // The state directory of every platform under the temporary root.
    env: { XDG_STATE_HOME: root, LOCALAPPDATA: root, MCP_BRIDGE_TOKEN_KEY: KEY_A },
    service: SERVICE,
    tokenDirectory: 'mcp-bridge-sdk/vscode/tokens',
    loadKeyring: fakeKeyring({ absent: NO_DBUS }).module,
  });
  const locksIn = async (place: string): Promise<number> =>
    (await readdir(place)).filter((name) => name.endsWith('.lock')).length;

  it('lives in the token directory for the file store', async () => {
    const opened = await openTokenStore(platformOptions('file'), logger);
    if (!opened.ok) throw new Error(opened.message);
    const during = await opened.lock.hold(key, () => locksIn(path.join(state(), 'tokens')));
    expect(during).toBe(1);
  });

  it('lives in <state>/locks for the memory store', async () => {
    const opened = await openTokenStore(platformOptions('memory'), logger);
    if (!opened.ok) throw new Error(opened.message);
    const during = await opened.lock.hold(key, () => locksIn(path.join(state(), 'locks')));
    expect(during).toBe(1);
  });
});
