/**
 * Opens the token store of `--token-store` (docs/sign-in.md#sign-in-stores) and the cross-process
 * sign-in lock that goes with it (docs/sign-in.md#sign-in-lock).
 *
 * - `auto`: the keychain; else the encrypted files when a key is set; else memory. The store in
 *   use hands over to the next for the rest of the process when it fails (fallbackStore.ts).
 * - `keychain`, `file`, `memory` force one store; one that does not open gives
 *   `{ ok: false, message: 'the token store did not open: <cause>' }` (the caller exits 2).
 *
 * This function logs the start line that names the store (scope `tokens`, info; an executable logs it under its profile's scope); the caller does
 * not log `store.description` again. The lock lives in the token directory for the file store,
 * else in `<state dir>/locks` (paths.ts).
 */
import type { Logger } from '../../ports/logger.js';
import { loadKeyFile, parseTokenKey } from './crypto.js';
import { openFileBackend } from './fileStore.js';
import { createFallbackStore } from './fallbackStore.js';
import { createIndexedStore } from './index.js';
import { openKeychainBackend, type KeyringModule } from './keychainStore.js';
import { createFileLock } from './lock.js';
import { createMemoryStore } from './memoryStore.js';
import { lockDirectory, tokenDirectory } from './paths.js';
import { reason, STORE_SCOPE } from './record.js';
import type { SignInLock, TokenStore } from './types.js';

export type TokenStoreChoice = 'auto' | 'keychain' | 'file' | 'memory';

export interface StoreOptions {
  readonly tokenStore: TokenStoreChoice;
  /** A token key (64 hex digits) the caller already has; else `MCP_BRIDGE_TOKEN_KEY` of `env`. */
  readonly tokenKey?: string;
  readonly tokenKeyFile?: string;
  readonly env: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** The keychain service, e.g. `mcp-bridge-sdk/mcp-bridge`. */
  readonly service: string;
  /**
   * The profile's token directory, relative to the user's state directory (SignInIdentity.
   * tokenDirectory), e.g. `mcp-bridge-sdk/generic/tokens`; needed unless `directory` is given.
   */
  readonly tokenDirectory?: string;
  /** The token directory (and lock directory) instead of the platform's; for tests. */
  readonly directory?: string;
  /** Loads `@napi-rs/keyring`; for tests. */
  readonly loadKeyring?: () => Promise<KeyringModule>;
}

export type OpenedStore =
  | { readonly ok: true; readonly store: TokenStore; readonly lock: SignInLock }
  | { readonly ok: false; readonly message: string };

/** The token key of the options: absent, a key, or the reason it is unusable. */
export async function resolveTokenKey(
  options: Pick<StoreOptions, 'tokenKey' | 'tokenKeyFile' | 'env'>,
  directory: string,
  platform: NodeJS.Platform,
): Promise<Buffer | undefined> {
  const envText = options.env['MCP_BRIDGE_TOKEN_KEY']?.trim();
  const text = options.tokenKey ?? (envText === '' ? undefined : envText);
  if (text !== undefined && options.tokenKeyFile !== undefined)
    throw new Error('both MCP_BRIDGE_TOKEN_KEY and --token-key-file give a token key: give one');
  if (options.tokenKeyFile !== undefined) return loadKeyFile(options.tokenKeyFile, directory, platform);
  if (text === undefined) return undefined;
  const key = parseTokenKey(text);
  if (key === undefined) throw new Error('the token key MCP_BRIDGE_TOKEN_KEY does not hold 64 hex digits');
  return key;
}

export interface StorePlaces {
  readonly platform: NodeJS.Platform;
  readonly tokenDir: string;
  readonly lockDir: string;
}

export const storePlaces = (
  options: Pick<StoreOptions, 'env' | 'platform' | 'directory' | 'tokenDirectory'>,
): StorePlaces => {
  const platform = options.platform ?? process.platform;
  if (options.directory !== undefined)
    return { platform, tokenDir: options.directory, lockDir: options.directory };
  // No product's directory is the default: each profile keeps its tokens apart.
  const relative = options.tokenDirectory;
  if (relative === undefined) throw new Error('the token store needs the token directory of the profile');
  return {
    platform,
    tokenDir: tokenDirectory(options.env, platform, relative),
    lockDir: lockDirectory(options.env, platform, relative),
  };
};

const NO_KEY = 'no token key is set (MCP_BRIDGE_TOKEN_KEY or --token-key-file)';

export async function openTokenStore(options: StoreOptions, logger: Logger): Promise<OpenedStore> {
  const places = storePlaces(options);
  const { platform, tokenDir } = places;
  const fileLock = (): SignInLock => createFileLock({ directory: tokenDir, logger });
  const stateLock = (): SignInLock => createFileLock({ directory: places.lockDir, logger });
  const announce = (store: TokenStore): void => logger.log(STORE_SCOPE, 'info', store.description);

  const openKeychain = async (lock: SignInLock): Promise<TokenStore> =>
    createIndexedStore(
      await openKeychainBackend({
        service: options.service,
        platform,
        ...(options.loadKeyring === undefined ? {} : { loadKeyring: options.loadKeyring }),
      }),
      logger,
      { lock },
    );
  const openFiles = async (key: Buffer, lock: SignInLock): Promise<TokenStore> =>
    createIndexedStore(await openFileBackend({ directory: tokenDir, key, platform }, logger), logger, {
      lock,
    });
  const failed = (cause: string): OpenedStore => ({
    ok: false,
    message: `the token store did not open: ${cause}`,
  });

  switch (options.tokenStore) {
    case 'memory': {
      const store = createMemoryStore();
      announce(store);
      return { ok: true, store, lock: stateLock() };
    }
    case 'keychain': {
      const lock = stateLock();
      try {
        const store = await openKeychain(lock);
        announce(store);
        return { ok: true, store, lock };
      } catch (error) {
        return failed(`the keychain is not available (${reason(error)})`);
      }
    }
    case 'file': {
      const lock = fileLock();
      try {
        const key = await resolveTokenKey(options, tokenDir, platform);
        if (key === undefined)
          return failed(
            '--token-store file needs a key: set the environment variable MCP_BRIDGE_TOKEN_KEY, or give --token-key-file',
          );
        const store = await openFiles(key, lock);
        announce(store);
        return { ok: true, store, lock };
      } catch (error) {
        return failed(reason(error));
      }
    }
    case 'auto':
      return openAuto();
  }

  async function openAuto(): Promise<OpenedStore> {
    // The key is looked at first: with a key, the files are the next store, and their lock is
    // the one in the token directory only when they are the first store.
    let key: Buffer | undefined;
    let keyProblem: string | undefined;
    try {
      key = await resolveTokenKey(options, tokenDir, platform);
    } catch (error) {
      keyProblem = reason(error);
    }
    const lock = stateLock();
    const memory = (): Promise<TokenStore> =>
      Promise.resolve(createMemoryStore('the tokens stay in memory: each start needs a new sign-in'));
    try {
      const keychain = await openKeychain(lock);
      announce(keychain);
      // The files are not needed now, but a key that was given and is unusable should be known.
      if (keyProblem !== undefined)
        logger.log(STORE_SCOPE, 'warn', `the token key is not usable: ${keyProblem}`);
      const rest = key === undefined ? [memory] : [() => openFiles(key, lock), memory];
      return { ok: true, store: createFallbackStore(keychain, rest, logger), lock };
    } catch (error) {
      const keychainProblem = reason(error);
      if (key !== undefined) {
        try {
          const filesLock = fileLock();
          const files = await openFiles(key, filesLock);
          logger.log(STORE_SCOPE, 'info', `the keychain is not available (${keychainProblem})`);
          announce(files);
          return { ok: true, store: createFallbackStore(files, [memory], logger), lock: filesLock };
        } catch (fileError) {
          keyProblem = reason(fileError);
        }
      }
      if (keyProblem !== undefined)
        logger.log(STORE_SCOPE, 'warn', `the file store did not start: ${keyProblem}`);
      const store = createMemoryStore(
        keyProblem === undefined
          ? `the tokens stay in memory: the keychain is not available (${keychainProblem}), and ${NO_KEY}. Each start needs a new sign-in`
          : `the tokens stay in memory: the keychain is not available (${keychainProblem}), and the file store did not start. Each start needs a new sign-in`,
      );
      announce(store);
      return { ok: true, store, lock };
    }
  }
}
