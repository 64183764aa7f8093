/**
 * `<program> logout [options] <url>` and `logout --all` (README.md, "Logout"). Before it deletes
 * a stored sign-in, logout revokes its tokens at the authorization server that issued them (RFC
 * 7009, src/oauth/revocation.ts) when that server has a revocation endpoint, and says the outcome
 * in one line; the record is deleted whatever the outcome. `--no-revoke` deletes without any
 * request. Exit codes: 0 deleted or nothing to delete (a failed revocation included), 1 a
 * deletion failed, 2 bad arguments or a forced store that does not open.
 *
 * Not done: the fallback that reads the server's protected resource metadata to locate a record
 * the index does not know. The index is rebuilt from the records when it is damaged
 * (store/index.ts), and logout also deletes the record of the exact key directly, so the lookup
 * has no case left that needs the network.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Logger, LogLevel } from '../ports/logger.js';
import { createSignInFetch } from '../edges/http/signInFetch.js';
import type { Fetch } from '../oauth/http.js';
import { outcomeLine, revokeRecord, secretOfRecord } from '../oauth/revocation.js';
import { baseIdentity, isIdpSessionKey, loopbackRedirectUri } from '../oauth/store/identity.js';
import type { ManagedStore } from '../oauth/store/index.js';
import type { TokenStoreChoice } from '../oauth/store/openStore.js';
import { reason } from '../oauth/store/record.js';
import type { RecordKey } from '../oauth/store/types.js';
import type { Profile } from '../profiles/profile.js';
import {
  accountEnvironment,
  accountOf,
  accountScope,
  openAccountStores,
  sameUrl,
  type AccountEnvironment,
} from './accountStores.js';

export interface LogoutOptions {
  /** The MCP server URL; absent with `all` and `idp`. */
  readonly url?: string;
  readonly all: boolean;
  /**
   * `--idp <issuer>`: ends the IdP session of the account at that IdP, and deletes the sign-ins
   * made from it (docs/sign-in.md#sign-in-idp-session).
   */
  readonly idp?: string;
  readonly account: string;
  readonly redirectPort: number;
  readonly tokenStore: TokenStoreChoice;
  readonly tokenKeyFile?: string;
  /** `--no-revoke`: delete without contacting the authorization server. */
  readonly noRevoke: boolean;
  /** The PEM text of `--ca-file`: trusted by the revocation requests, as by the sign-in's. */
  readonly caPem?: string;
  readonly logLevel: LogLevel;
  /** The profile's name: the bridge name of the storage identity (docs/sign-in.md#sign-in-stores). */
  readonly bridgeName: string;
}

/** Where logout looks and how it reaches the authorization servers; defaults are the process's. */
export interface LogoutEnvironment extends AccountEnvironment {
  /** The fetch of the revocation requests (default: the sign-in's, with `--ca-file` and the proxy). */
  readonly fetch?: Fetch;
}

/** The environment of the logout of an executable: the process's, with the profile's identity. */
export const logoutEnvironment = (profile: Profile): LogoutEnvironment => accountEnvironment(profile);

/** What the deletions of one logout share: its options, its log line, and how it revokes. */
interface LogoutRun {
  readonly options: LogoutOptions;
  readonly say: (level: LogLevel, text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly fetchOf: (mcpUrl: string) => Fetch;
}

/** The line of a bad combination of arguments (exit 2), or undefined. */
function argumentsError(options: LogoutOptions): string | undefined {
  if (options.all && options.url !== undefined) {
    return 'the option --all cannot be used here: it excludes the URL and --account';
  }
  if (!options.all && options.idp === undefined && options.url === undefined) {
    return 'the URL of the upstream server is missing: give it after the options of logout, or give --all';
  }
  return undefined;
}

export async function runLogout(
  options: LogoutOptions,
  logger: Logger,
  environment: LogoutEnvironment = {},
): Promise<number> {
  const scope = accountScope(environment);
  const say = (level: LogLevel, text: string): void => logger.log(scope, level, text);
  const wrong = argumentsError(options);
  if (wrong !== undefined) {
    say('err', wrong);
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
  const opened = await openAccountStores(
    {
      tokenStore: options.tokenStore,
      bridgeName: options.bridgeName,
      ...(options.tokenKeyFile === undefined ? {} : { tokenKeyFile: options.tokenKeyFile }),
    },
    'logout',
    logger,
    environment,
  );
  if (!opened.ok) return 2;
  const { stores, places } = opened;
  const fetches = revocationFetches(options, env, environment.fetch);
  const run: LogoutRun = { options, say, env, fetchOf: fetches.fetchOf };

  let failed = false;
  let deleted = 0;
  try {
    for (const { kind, store } of stores) {
      try {
        deleted += await deleteFrom(run, store);
      } catch (error) {
        failed = true;
        say('err', `logout failed in the ${kind} store: ${reason(error)}`);
      }
    }
  } finally {
    fetches.close();
  }
  sayDeleted(run, deleted, failed);
  if (options.all && !(await deleteTokenDir(run, places.tokenDir))) failed = true;
  return failed ? 1 : 0;
}

/**
 * The fetch of the revocation requests of each MCP URL, made at the first revocation only:
 * --no-revoke and an empty store need no network at all. One per MCP URL: which hosts the sign-in
 * may reach depends on the MCP server's host (SECURITY.md).
 */
function revocationFetches(
  options: LogoutOptions,
  env: NodeJS.ProcessEnv,
  given: Fetch | undefined,
): { fetchOf: (mcpUrl: string) => Fetch; close: () => void } {
  const signInFetches = new Map<string, ReturnType<typeof createSignInFetch>>();
  const fetchOf = (mcpUrl: string): Fetch => {
    if (given !== undefined) return given;
    let made = signInFetches.get(mcpUrl);
    if (made === undefined) {
      made = createSignInFetch(
        options.caPem === undefined ? { env, mcpUrl } : { env, mcpUrl, caPem: options.caPem },
      );
      signInFetches.set(mcpUrl, made);
    }
    return made.fetch;
  };
  return {
    fetchOf,
    close: () => {
      for (const made of signInFetches.values()) made.close();
    },
  };
}

/** What one store holds of the logout's choice (`--all`, `--idp`, or the URL), deleted; the count. */
async function deleteFrom(run: LogoutRun, store: ManagedStore): Promise<number> {
  const { options } = run;
  if (options.all) {
    for (const key of await store.list()) await revoke(run, store, key);
    return store.clear();
  }
  if (options.idp !== undefined) return deleteIdpSession(run, store, options.idp);
  return deleteAccount(run, store, options.url ?? '');
}

/** `--all` with a file store: the token directory goes too; false when it could not. */
async function deleteTokenDir(run: LogoutRun, tokenDir: string): Promise<boolean> {
  if (run.options.tokenStore === 'keychain' || !existsSync(tokenDir)) return true;
  try {
    await rm(tokenDir, { recursive: true, force: true });
    run.say('info', `deleted the token directory ${tokenDir}`);
    return true;
  } catch (error) {
    run.say('err', `cannot delete the token directory ${tokenDir}: ${reason(error)}`);
    return false;
  }
}

/** The one line of what logout deleted. */
function sayDeleted(run: LogoutRun, deleted: number, failed: boolean): void {
  const { options, say } = run;
  if (options.all) {
    say('info', `logout deleted ${deleted} stored sign-in${deleted === 1 ? '' : 's'}`);
  } else if (options.idp !== undefined) {
    say(
      'info',
      deleted > 0
        ? `logout ended the IdP session of the account "${options.account}" and deleted ${deleted} stored record${deleted === 1 ? '' : 's'} of it. The next start signs in at the IdP again`
        : `logout found no IdP session of the account "${options.account}" for the issuer`,
    );
  } else if (deleted > 0) {
    say(
      'info',
      `logout deleted the stored sign-in of the account "${options.account}". The next start signs in again`,
    );
  } else if (!failed) {
    say('info', `logout found no stored sign-in of the account "${options.account}" for the URL`);
  }
}

/**
 * Revokes the tokens of the record of `key`, unless --no-revoke, and says the outcome in one
 * line; never rejects, so that the deletion follows whatever happened.
 */
async function revoke(run: LogoutRun, store: ManagedStore, key: RecordKey): Promise<void> {
  const { say, env } = run;
  if (run.options.noRevoke) return;
  let record;
  try {
    record = await store.read(key);
  } catch (error) {
    say('warn', `logout did not revoke the tokens: the stored sign-in was not read (${reason(error)})`);
    return;
  }
  if (record === undefined) return;
  // logout takes no --client-issuer: a pre-registered client's secret is never sent
  // (revocation.ts), except the IdP client's to its own IdP (docs/sign-in.md#sign-in-idp-session).
  const idpSecret = env['MCP_BRIDGE_IDP_CLIENT_SECRET'];
  const secret = secretOfRecord(
    record,
    isIdpSessionKey(record) && idpSecret !== undefined && idpSecret !== ''
      ? { clientIssuer: record.issuer, clientSecret: idpSecret }
      : {},
  );
  const outcome = await revokeRecord({
    record,
    fetch: run.fetchOf(record.url),
    ...(secret === undefined ? {} : { secret }),
  });
  say(outcome.kind === 'failed' ? 'warn' : 'info', outcomeLine(record, outcome));
}

/** Revokes and deletes each of `keys`; the count deleted. */
async function revokeAndDelete(
  run: LogoutRun,
  store: ManagedStore,
  keys: readonly RecordKey[],
): Promise<number> {
  let count = 0;
  for (const key of keys) {
    await revoke(run, store, key);
    if (await store.delete(key)) count += 1;
  }
  return count;
}

/**
 * Revokes and deletes the IdP session of the account at `issuer` (the IdP's tokens) and every
 * sign-in of the account made from it (its `idpIssuer`): the next start signs in at the IdP again.
 */
async function deleteIdpSession(run: LogoutRun, store: ManagedStore, issuer: string): Promise<number> {
  const keys = (await store.list()).filter((key) => accountOf(key.identity) === run.options.account);
  const sessions = keys.filter((key) => isIdpSessionKey(key) && sameUrl(key.url, issuer));
  const made: RecordKey[] = [];
  for (const key of keys) {
    if (isIdpSessionKey(key)) continue;
    const record = await store.read(key);
    if (record?.idpIssuer !== undefined && sameUrl(record.idpIssuer, issuer)) made.push(key);
  }
  return revokeAndDelete(run, store, [...sessions, ...made]);
}

/** Revokes and deletes the records of the URL and account: the base identity and its client variants. */
async function deleteAccount(run: LogoutRun, store: ManagedStore, url: string): Promise<number> {
  const { options } = run;
  const base = baseIdentity({
    bridgeName: options.bridgeName,
    account: options.account,
    redirectUri: loopbackRedirectUri(options.redirectPort),
  });
  const keys: RecordKey[] = (await store.list()).filter(
    (entry) => sameUrl(entry.url, url) && (entry.identity === base || entry.identity.startsWith(`${base}|`)),
  );
  // The exact key too, in case an index update failed when it was written.
  if (!keys.some((key) => key.url === url && key.identity === base)) keys.push({ url, identity: base });
  return revokeAndDelete(run, store, keys);
}
