/**
 * The keychain store (issue 12, deliverable 1; reference-behaviors.md §6.11): Windows Credential
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
  /** Loads the module; tests give a fake one. Default: `import('@napi-rs/keyring')`. */
  readonly loadKeyring?: () => Promise<KeyringModule>;
  /** How long one keychain call may take before the store counts as failed. Default 10 s. */
  readonly callTimeoutMs?: number;
}

const PROBE_ACCOUNT = 'probe';

/** The module through a specifier in a variable, so the build does not need the optional dependency. */
const importKeyring = async (): Promise<KeyringModule> => {
  const specifier = '@napi-rs/keyring';
  return (await import(specifier)) as KeyringModule;
};

/**
 * Opens the keychain store: loads the module and reads one probe entry, so that an absent or
 * locked-away secret service is found at start (the reason goes into the start line) rather than
 * at the first sign-in. Rejects with the reason when the keychain is not usable.
 */
export async function openKeychainBackend(options: KeychainOptions): Promise<RecordBackend> {
  const timeoutMs = options.callTimeoutMs ?? 10_000;
  let keyring: KeyringModule;
  try {
    keyring = await (options.loadKeyring ?? importKeyring)();
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
  return {
    kind: 'keychain',
    description: `the tokens are in the keychain of the host (service "${options.service}")`,
    load: (name) =>
      wrap(async () => {
        const text = await entry(name).getPassword(signal());
        if (text === null) return undefined;
        try {
          return JSON.parse(text) as unknown;
        } catch {
          return undefined;
        }
      }),
    save: (name, value) => wrap(() => entry(name).setPassword(JSON.stringify(value), signal())),
    remove: (name) => wrap(() => entry(name).deleteCredential(signal())),
    names: () =>
      wrap(async () =>
        (await keyring.findCredentialsAsync(options.service, null, signal()))
          .map((credential) => credential.account)
          .filter((account) => account !== PROBE_ACCOUNT),
      ),
  };
}
