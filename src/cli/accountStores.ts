/**
 * The token stores that `logout` and `status` look into (README.md, "Sign-in"): with
 * `--token-store auto` the keychain and the encrypted files, each skipped with a warning when it
 * does not open; a forced store that does not open is exit code 2. The memory store keeps nothing
 * after its process, so there is nothing to find in it.
 */
import { readdir } from 'node:fs/promises';
import type { Logger, LogLevel } from '../ports/logger.js';
import { openFileBackend } from '../oauth/store/fileStore.js';
import { createIndexedStore, type ManagedStore } from '../oauth/store/index.js';
import { openKeychainBackend, type KeyringModule } from '../oauth/store/keychainStore.js';
import { createFileLock } from '../oauth/store/lock.js';
import {
  resolveTokenKey,
  storePlaces,
  type StorePlaces,
  type TokenStoreChoice,
} from '../oauth/store/openStore.js';
import { reason, storeLogger } from '../oauth/store/record.js';
import type { Profile, SignInIdentity } from '../profiles/profile.js';

/** Where logout and status look; defaults are the process's. Tests point it at a temporary directory. */
export interface AccountEnvironment {
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  readonly directory?: string;
  readonly loadKeyring?: () => Promise<KeyringModule>;
  /**
   * Where the profile keeps its sign-ins (SignInIdentity): its keychain service (default
   * `mcp-bridge-sdk/<bridgeName>`) and its token directory (default the one of
   * `mcp-bridge-vscode`). The executable passes its profile's (accountEnvironment).
   */
  readonly identity?: Pick<SignInIdentity, 'keychainService' | 'tokenDirectory'>;
  /** The scope of the log lines (Profile.logScope; default `vscode`, the one of `mcp-bridge-vscode`). */
  readonly scope?: string;
}

/** The environment of the logout and status of an executable: the process's, with the profile's identity. */
export const accountEnvironment = (profile: Profile): AccountEnvironment => ({
  scope: profile.logScope,
  identity: {
    keychainService: profile.identity.keychainService,
    tokenDirectory: profile.identity.tokenDirectory,
  },
});

/** The scope of the log lines of logout and status. */
export const accountScope = (environment: AccountEnvironment): string => environment.scope ?? 'vscode';

export type StoreKind = 'keychain' | 'file';

export interface AccountStore {
  readonly kind: StoreKind;
  readonly store: ManagedStore;
}

export interface StoreChoice {
  readonly tokenStore: Exclude<TokenStoreChoice, 'memory'>;
  readonly tokenKeyFile?: string;
  /** The profile's name: the default keychain service is `mcp-bridge-sdk/<bridgeName>`. */
  readonly bridgeName: string;
}

export type OpenedStores =
  | { readonly ok: true; readonly stores: readonly AccountStore[]; readonly places: StorePlaces }
  /** A forced store did not open: its line was logged; the caller exits 2. */
  | { readonly ok: false };

type Opened = { store: ManagedStore } | { skip: string; quiet?: boolean };

async function hasTokenFiles(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).some((name) => name.endsWith('.token'));
  } catch {
    return false;
  }
}

/**
 * Opens the stores of `choice`. `command` names the command in the warning of a store that
 * `auto` skips (`logout skips the keychain store: …`).
 */
export async function openAccountStores(
  choice: StoreChoice,
  command: 'logout' | 'status' | 'doctor',
  logger: Logger,
  environment: AccountEnvironment,
): Promise<OpenedStores> {
  const scope = accountScope(environment);
  const say = (level: LogLevel, text: string): void => logger.log(scope, level, text);
  const storeLog = storeLogger(logger, scope);
  const env = environment.env ?? process.env;
  const places = storePlaces({
    env,
    ...(environment.platform === undefined ? {} : { platform: environment.platform }),
    ...(environment.directory === undefined ? {} : { directory: environment.directory }),
    ...(environment.identity === undefined ? {} : { tokenDirectory: environment.identity.tokenDirectory }),
  });
  const service = environment.identity?.keychainService ?? `mcp-bridge-sdk/${choice.bridgeName}`;

  async function open(kind: StoreKind): Promise<Opened> {
    try {
      if (kind === 'keychain') {
        const backend = await openKeychainBackend({
          service,
          platform: places.platform,
          ...(environment.loadKeyring === undefined ? {} : { loadKeyring: environment.loadKeyring }),
        });
        return {
          store: createIndexedStore(backend, storeLog, {
            lock: createFileLock({ directory: places.lockDir, logger: storeLog }),
          }),
        };
      }
      const key = await resolveTokenKey(
        { env, ...(choice.tokenKeyFile === undefined ? {} : { tokenKeyFile: choice.tokenKeyFile }) },
        places.tokenDir,
        places.platform,
      );
      if (key === undefined)
        return {
          skip: 'no token key is set (MCP_BRIDGE_TOKEN_KEY or --token-key-file)',
          // Quiet unless there are files that only a key could open.
          quiet: !(await hasTokenFiles(places.tokenDir)),
        };
      const backend = await openFileBackend(
        { directory: places.tokenDir, key, platform: places.platform },
        storeLog,
      );
      return {
        store: createIndexedStore(backend, storeLog, {
          lock: createFileLock({ directory: places.tokenDir, logger: storeLog }),
        }),
      };
    } catch (error) {
      return {
        skip: kind === 'keychain' ? `the keychain is not available (${reason(error)})` : reason(error),
      };
    }
  }

  const kinds: StoreKind[] = choice.tokenStore === 'auto' ? ['keychain', 'file'] : [choice.tokenStore];
  const stores: AccountStore[] = [];
  for (const kind of kinds) {
    const opened = await open(kind);
    if ('store' in opened) stores.push({ kind, store: opened.store });
    else if (choice.tokenStore !== 'auto') {
      say('err', `the token store did not open: ${opened.skip}`);
      return { ok: false };
    } else if (opened.quiet !== true) say('warn', `${command} skips the ${kind} store: ${opened.skip}`);
  }
  return { ok: true, stores, places };
}

/** The account label of a storage identity `<bridge name>|<account>|<redirect URI>[|…]` (identity.ts). */
export const accountOf = (identity: string): string => identity.split('|')[1] ?? '';

/** The redirect URI of a storage identity. */
export const redirectUriOf = (identity: string): string => identity.split('|')[2] ?? '';

/** Two URLs that name the same server URL (as the URL parser writes them). */
export const sameUrl = (a: string, b: string): boolean => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};
