/**
 * `<program> logout [options] <url>` and `logout --all` (reference-behaviors.md §6.12;
 * issue 12, deliverable 4). Deletes stored sign-ins; the authorization server is never contacted
 * (no revocation). Exit codes: 0 deleted or nothing to delete, 1 a deletion failed, 2 bad
 * arguments or a forced store that does not open.
 *
 * Not done: the fallback of §6.12 that reads the server's protected resource metadata to locate
 * a record the index does not know. The index here is rebuilt from the records when it is
 * damaged (store/index.ts), and logout also deletes the record of the exact key directly, so the
 * lookup has no case left that needs the network. `caPem` and `logLevel` are therefore unused
 * here (the caller built the logger with the level).
 */
import { existsSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import type { Logger, LogLevel } from '../bridge/log.js';
import { openFileBackend } from '../oauth/store/fileStore.js';
import { baseIdentity, loopbackRedirectUri } from '../oauth/store/identity.js';
import { createIndexedStore, type ManagedStore } from '../oauth/store/index.js';
import { openKeychainBackend, type KeyringModule } from '../oauth/store/keychainStore.js';
import { createFileLock } from '../oauth/store/lock.js';
import { resolveTokenKey, storePlaces, type TokenStoreChoice } from '../oauth/store/openStore.js';
import { reason } from '../oauth/store/record.js';
import type { RecordKey } from '../oauth/store/types.js';
import type { Profile, SignInIdentity } from '../profiles/profile.js';

export interface LogoutOptions {
  /** The MCP server URL; absent with `all`. */
  readonly url?: string;
  readonly all: boolean;
  readonly account: string;
  readonly redirectPort: number;
  readonly tokenStore: TokenStoreChoice;
  readonly tokenKeyFile?: string;
  readonly caPem?: string;
  readonly logLevel: LogLevel;
  /** The profile's name: the bridge name of the storage identity (reference-behaviors.md §6.11). */
  readonly bridgeName: string;
}

/** Where logout looks; defaults are the process's. Tests point it at a temporary directory. */
export interface LogoutEnvironment {
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  readonly directory?: string;
  readonly loadKeyring?: () => Promise<KeyringModule>;
  /**
   * Where the profile keeps its sign-ins (SignInIdentity): its keychain service (default
   * `mcp-bridge-sdk/<bridgeName>`) and its token directory (default the one of
   * `mcp-bridge-vscode`). The executable passes its profile's (logoutEnvironment).
   */
  readonly identity?: Pick<SignInIdentity, 'keychainService' | 'tokenDirectory'>;
}

/** The environment of the logout of an executable: the process's, with the profile's identity. */
export const logoutEnvironment = (profile: Profile): LogoutEnvironment => ({
  identity: {
    keychainService: profile.identity.keychainService,
    tokenDirectory: profile.identity.tokenDirectory,
  },
});

const SCOPE = 'vscode';
type Kind = 'keychain' | 'file';
type Opened = { store: ManagedStore } | { skip: string; quiet?: boolean };

const sameUrl = (a: string, b: string): boolean => {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return a === b;
  }
};

async function hasTokenFiles(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).some((name) => name.endsWith('.token'));
  } catch {
    return false;
  }
}

export async function runLogout(
  options: LogoutOptions,
  logger: Logger,
  environment: LogoutEnvironment = {},
): Promise<number> {
  const say = (level: LogLevel, text: string): void => logger.log(SCOPE, level, text);
  if (options.all && options.url !== undefined) {
    say('err', 'the option --all cannot be used here: it excludes the URL and --account');
    return 2;
  }
  if (!options.all && options.url === undefined) {
    say(
      'err',
      'the URL of the upstream server is missing: give it after the options of logout, or give --all',
    );
    return 2;
  }
  if (options.tokenStore === 'memory') {
    say(
      'info',
      'the memory store keeps no sign-in after the end of the process: logout has nothing to delete',
    );
    return 0;
  }
  const env = environment.env ?? process.env;
  const places = storePlaces({
    env,
    ...(environment.platform === undefined ? {} : { platform: environment.platform }),
    ...(environment.directory === undefined ? {} : { directory: environment.directory }),
    ...(environment.identity === undefined ? {} : { tokenDirectory: environment.identity.tokenDirectory }),
  });
  const service = environment.identity?.keychainService ?? `mcp-bridge-sdk/${options.bridgeName}`;

  async function open(kind: Kind): Promise<Opened> {
    try {
      if (kind === 'keychain') {
        const backend = await openKeychainBackend({
          service,
          platform: places.platform,
          ...(environment.loadKeyring === undefined ? {} : { loadKeyring: environment.loadKeyring }),
        });
        return {
          store: createIndexedStore(backend, logger, {
            lock: createFileLock({ directory: places.lockDir, logger }),
          }),
        };
      }
      const key = await resolveTokenKey(
        { env, ...(options.tokenKeyFile === undefined ? {} : { tokenKeyFile: options.tokenKeyFile }) },
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
        logger,
      );
      return {
        store: createIndexedStore(backend, logger, {
          lock: createFileLock({ directory: places.tokenDir, logger }),
        }),
      };
    } catch (error) {
      return {
        skip: kind === 'keychain' ? `the keychain is not available (${reason(error)})` : reason(error),
      };
    }
  }

  const kinds: Kind[] = options.tokenStore === 'auto' ? ['keychain', 'file'] : [options.tokenStore];
  const stores: Array<{ kind: Kind; store: ManagedStore }> = [];
  for (const kind of kinds) {
    const opened = await open(kind);
    if ('store' in opened) stores.push({ kind, store: opened.store });
    else if (options.tokenStore !== 'auto') {
      say('err', `the token store did not open: ${opened.skip}`);
      return 2;
    } else if (opened.quiet !== true) say('warn', `logout skips the ${kind} store: ${opened.skip}`);
  }

  let failed = false;
  let deleted = 0;
  for (const { kind, store } of stores) {
    try {
      deleted += options.all ? await store.clear() : await deleteAccount(store, options.url ?? '');
    } catch (error) {
      failed = true;
      say('err', `logout failed in the ${kind} store: ${reason(error)}`);
    }
  }

  if (options.all) {
    say('info', `logout deleted ${deleted} stored sign-in${deleted === 1 ? '' : 's'}`);
    if (kinds.includes('file') && existsSync(places.tokenDir)) {
      try {
        await rm(places.tokenDir, { recursive: true, force: true });
        say('info', `deleted the token directory ${places.tokenDir}`);
      } catch (error) {
        failed = true;
        say('err', `cannot delete the token directory ${places.tokenDir}: ${reason(error)}`);
      }
    }
  } else if (deleted > 0) {
    say(
      'info',
      `logout deleted the stored sign-in of the account "${options.account}". The next start signs in again`,
    );
  } else if (!failed) {
    say('info', `logout found no stored sign-in of the account "${options.account}" for the URL`);
  }
  return failed ? 1 : 0;

  /** Deletes the records of the URL and account: the base identity and its client variants. */
  async function deleteAccount(store: ManagedStore, url: string): Promise<number> {
    const base = baseIdentity({
      bridgeName: options.bridgeName,
      account: options.account,
      redirectUri: loopbackRedirectUri(options.redirectPort),
    });
    const keys: RecordKey[] = (await store.list()).filter(
      (entry) =>
        sameUrl(entry.url, url) && (entry.identity === base || entry.identity.startsWith(`${base}|`)),
    );
    // The exact key too, in case an index update failed when it was written.
    if (!keys.some((key) => key.url === url && key.identity === base)) keys.push({ url, identity: base });
    let count = 0;
    for (const key of keys) if (await store.delete(key)) count += 1;
    return count;
  }
}
