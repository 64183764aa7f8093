/**
 * The keychain store (docs/sign-in.md#sign-in-stores): Windows Credential
 * Manager, macOS Keychain or the Secret Service, through the optional dependency
 * `@napi-rs/keyring`. The service is the profile's (`mcp-bridge-sdk/mcp-bridge-vscode`), the
 * account the hashed record name, the secret the record's JSON.
 *
 * The module is loaded with a dynamic import so that a missing module (an optional dependency
 * that did not install) is a reason to fall through, not a crash. On Linux the entries are pinned
 * to the Secret Service: without that, keyring would fall back to the kernel keyring, which
 * forgets everything at logout or reboot; and a headless Linux without a D-Bus session fails at
 * once, without any unlock prompt.
 */
import type { RecordBackend } from './backend.js';
import { loadKeyringModule } from './keyringModule.js';
import { reason } from './record.js';

/** The part of `@napi-rs/keyring` 2.x the store uses. */
export interface KeyringModule {
  AsyncEntry: new (
    service: string,
    account: string,
    options?: { linux?: { store?: 'secret-service' | 'keyutils' } },
  ) => {
    getPassword(signal?: AbortSignal): Promise<string | null>;
    setPassword(password: string, signal?: AbortSignal): Promise<void>;
    deleteCredential(signal?: AbortSignal): Promise<boolean>;
  };
  findCredentialsAsync(
    service: string,
    target?: string | null,
    signal?: AbortSignal,
  ): Promise<Array<{ account: string; password: string }>>;
}

export interface KeychainOptions {
  /** The keychain service, e.g. `mcp-bridge-sdk/mcp-bridge-vscode`. */
  readonly service: string;
  readonly platform: NodeJS.Platform;
  /** Loads the module; tests give a fake one. Default: loadKeyringModule (keyringModule.ts). */
  readonly loadKeyring?: () => Promise<KeyringModule>;
  /** The longest text of one entry (default: 1000 on Windows, no limit elsewhere); for tests. */
  readonly chunkChars?: number;
  /** How long one keychain call may take before the store counts as failed. Default 10 s. */
  readonly callTimeoutMs?: number;
}

const PROBE_ACCOUNT = 'probe';
/** Record names are SHA-256 hex; the parts of a split value add `.<n>`, the probe is `probe`. */
const RECORD_NAME = /^[0-9a-f]{64}$/;
const CHUNKED = /^chunks:(\d+):/;
/**
 * Windows Credential Manager keeps at most 2560 bytes per credential, and keyring stores the
 * password as UTF-16: 1280 characters. A record with a JWT access token and a refresh token can
 * be longer, so on Windows a value is split into entries of 1000 characters (`<name>`,
 * `<name>.1`, …; the first says how many).
 */
const WINDOWS_CHUNK_CHARS = 1000;

/**
 * Opens the keychain store: loads the module and reads one probe entry, so that an absent or
 * locked-away secret service is found at start (the reason goes into the start line) rather than
 * at the first sign-in. Rejects with the reason when the keychain is not usable.
 */
export async function openKeychainBackend(options: KeychainOptions): Promise<RecordBackend> {
  const timeoutMs = options.callTimeoutMs ?? 10_000;
  let keyring: KeyringModule;
  try {
    keyring = await (options.loadKeyring ?? loadKeyringModule)();
  } catch (error) {
    throw new Error(`the module @napi-rs/keyring is not installed (${reason(error)})`, {
      cause: error,
    });
  }
  const entryOptions = options.platform === 'linux' ? { linux: { store: 'secret-service' as const } } : {};
  const entry = (name: string) => new keyring.AsyncEntry(options.service, name, entryOptions);
  // A call that does not answer (a prompt nobody sees) counts as a failure after the timeout.
  const signal = (): AbortSignal => AbortSignal.timeout(timeoutMs);
  const wrap = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw new Error(`the keychain failed: ${reason(error)}`, { cause: error });
    }
  };
  try {
    await entry(PROBE_ACCOUNT).getPassword(signal());
  } catch (error) {
    throw new Error(reason(error), { cause: error });
  }
  const get = (name: string): Promise<string | null> => entry(name).getPassword(signal());
  const set = (name: string, text: string): Promise<void> => entry(name).setPassword(text, signal());
  const del = (name: string): Promise<boolean> => entry(name).deleteCredential(signal());
  const chunkChars = options.chunkChars ?? (options.platform === 'win32' ? WINDOWS_CHUNK_CHARS : Infinity);

  /** The number of entries of the value stored under `name` (1 unless it was split). */
  const partsOf = (text: string | null): number => Number(CHUNKED.exec(text ?? '')?.[1] ?? 1);

  async function load(name: string): Promise<unknown> {
    const head = await get(name);
    if (head === null) return undefined;
    const match = CHUNKED.exec(head);
    let text = match === null ? head : head.slice(match[0].length);
    for (let i = 1; i < partsOf(head); i += 1) {
      const part = await get(`${name}.${i}`);
      if (part === null) return undefined;
      text += part;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  }

  /** Writes the parts first and the head last, then deletes parts the old value had beyond the new. */
  async function save(name: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value);
    const oldParts = partsOf(await get(name));
    const parts = Math.max(1, Math.ceil(text.length / chunkChars));
    for (let i = 1; i < parts; i += 1)
      await set(`${name}.${i}`, text.slice(i * chunkChars, (i + 1) * chunkChars));
    await set(name, parts === 1 ? text : `chunks:${parts}:${text.slice(0, chunkChars)}`);
    for (let i = parts; i < oldParts; i += 1) await del(`${name}.${i}`);
  }

  async function remove(name: string): Promise<boolean> {
    const parts = partsOf(await get(name));
    const removed = await del(name);
    for (let i = 1; i < parts; i += 1) await del(`${name}.${i}`);
    return removed;
  }

  return {
    kind: 'keychain',
    description: `the tokens are in the keychain of the host (service "${options.service}")`,
    load: (name) => wrap(() => load(name)),
    save: (name, value) => wrap(() => save(name, value)),
    remove: (name) => wrap(() => remove(name)),
    names: () =>
      wrap(async () =>
        (await keyring.findCredentialsAsync(options.service, null, signal()))
          .map((credential) => credential.account)
          .filter((account) => RECORD_NAME.test(account)),
      ),
  };
}
