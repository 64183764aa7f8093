/**
 * `<program> status [options] [<url>]` (README.md, "Status"): lists the stored sign-ins of the
 * executable's profile on stdout, as text or with `--json` as a JSON array. It never prints a
 * token or a secret, and of the server URL only its origin and path (a query may hold a key).
 * It reads the stores only: no request leaves the machine. Exit codes: 0 at least one sign-in
 * listed, 1 none found, 2 bad arguments or a forced store that does not open.
 */
import type { Logger, LogLevel } from '../ports/logger.js';
import { oneLine } from '../ports/terminalText.js';
import type { TokenStoreChoice } from '../oauth/store/openStore.js';
import { reason } from '../oauth/store/record.js';
import { isIdpSessionKey } from '../oauth/store/identity.js';
import type { TokenRecord } from '../oauth/store/types.js';
import { idpSessionStatusOf, idpSessionText, type IdpSessionStatus } from './idpStatus.js';
import {
  accountOf,
  accountScope,
  openAccountStores,
  redirectUriOf,
  sameUrl,
  type AccountEnvironment,
  type StoreKind,
} from './accountStores.js';

export interface StatusOptions {
  /** Only the sign-ins of this MCP server URL. */
  readonly url?: string;
  /** Only the sign-ins of this account label (`--account`); all accounts when absent. */
  readonly account?: string;
  readonly tokenStore: TokenStoreChoice;
  readonly tokenKeyFile?: string;
  readonly json: boolean;
  readonly logLevel: LogLevel;
  /** The profile's name: the default keychain service (accountStores.ts). */
  readonly bridgeName: string;
}

/** One stored sign-in as `status --json` prints it; the field names are stable (README.md). */
export interface SignInStatus {
  readonly kind: 'sign-in';
  /** Origin and path of the MCP server URL; never its query. */
  readonly server: string;
  readonly account: string;
  readonly store: StoreKind;
  readonly issuer: string;
  /** The granted scopes as stored, in their order; empty when none were stored. */
  readonly scopes: readonly string[];
  /** ISO 8601 time; null when the server gave no lifetime. */
  readonly accessTokenExpiresAt: string | null;
  /** Whether the access token has expired; null when the server gave no lifetime. */
  readonly accessTokenExpired: boolean | null;
  /** Whether a refresh token is stored (never the token). */
  readonly refreshable: boolean;
  /** ISO 8601 time of the last write of the record: the sign-in or its last refresh. */
  readonly lastRefreshAt: string;
  /** How the bridge is known to the authorization server. */
  readonly client: TokenRecord['client']['source'];
  /** The grant of the sign-in (docs/sign-in.md#sign-in-grants): `authorization-code` for a browser sign-in. */
  readonly grant: string;
  /** The loopback redirect URI of the storage identity (its port is logout's `--redirect-port`). */
  readonly redirectUri: string;
  /** The issuer of the IdP session the sign-in was made from (`--grant id-jag`); else null. */
  readonly idpIssuer: string | null;
}

export interface StatusOutput {
  /** Writes to stdout (default: process.stdout). */
  readonly write?: (text: string) => void;
  /** The clock of "expired" and "in 42 min" (default: Date.now). */
  readonly now?: () => number;
}

/** Origin and path of a URL; never its query or fragment. */
export function serverOf(url: string): string {
  const parsed = URL.parse(url);
  return parsed === null ? 'a URL that cannot be read' : `${parsed.origin}${parsed.pathname}`;
}

export function statusOf(record: TokenRecord, store: StoreKind, now: number): SignInStatus {
  const expires = record.expiresAt;
  // What an authorization server or a server chose (the issuer, the granted scope, the URL) is
  // printed without its control characters, also in the JSON (src/ports/terminalText.ts).
  return {
    kind: 'sign-in',
    server: oneLine(serverOf(record.url)),
    account: oneLine(accountOf(record.identity)),
    store,
    issuer: oneLine(record.issuer),
    scopes: oneLine(record.scope ?? '')
      .split(' ')
      .filter((scope) => scope !== ''),
    accessTokenExpiresAt: expires === undefined ? null : new Date(expires).toISOString(),
    accessTokenExpired: expires === undefined ? null : expires <= now,
    refreshable: record.refreshToken !== undefined,
    lastRefreshAt: new Date(record.savedAt).toISOString(),
    client: record.client.source,
    grant: oneLine(record.grant ?? 'authorization-code'),
    redirectUri: oneLine(redirectUriOf(record.identity)),
    idpIssuer: record.idpIssuer === undefined ? null : oneLine(record.idpIssuer),
  };
}

/** `in 42 min`, `in 3 h`, `in 2 days`, or `expired`. */
export function relativeTime(at: number, now: number): string {
  const minutes = Math.floor((at - now) / 60_000);
  if (at <= now) return 'expired';
  if (minutes < 1) return 'in less than a minute';
  if (minutes < 120) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `in ${hours} h` : `in ${Math.floor(hours / 24)} days`;
}

/** `<ISO time> (in 42 min)`, or `no lifetime given`. */
const expiryText = (iso: string | null, expiresAt: number | undefined, now: number): string =>
  iso === null || expiresAt === undefined ? 'no lifetime given' : `${iso} (${relativeTime(expiresAt, now)})`;

/** The text of one sign-in: the server line, then indented fields. */
export function statusText(status: SignInStatus, expiresAt: number | undefined, now: number): string {
  const expiry = expiryText(status.accessTokenExpiresAt, expiresAt, now);
  return [
    status.server,
    `  account:       ${status.account}`,
    `  store:         ${status.store}`,
    `  issuer:        ${status.issuer}`,
    `  scopes:        ${status.scopes.length === 0 ? '(none stored)' : status.scopes.join(' ')}`,
    `  access token:  expires ${expiry}`,
    `  refreshable:   ${status.refreshable ? 'yes' : 'no'}`,
    `  last refresh:  ${status.lastRefreshAt}`,
    `  client:        ${status.client}`,
    `  grant:         ${status.grant}`,
    `  redirect URI:  ${status.redirectUri}`,
    ...(status.idpIssuer === null ? [] : [`  IdP:           ${status.idpIssuer}`]),
  ].join('\n');
}

export async function runStatus(
  options: StatusOptions,
  logger: Logger,
  environment: AccountEnvironment = {},
  output: StatusOutput = {},
): Promise<number> {
  const scope = accountScope(environment);
  const say = (level: LogLevel, text: string): void => logger.log(scope, level, text);
  const write = output.write ?? ((text: string) => void process.stdout.write(text));
  const now = (output.now ?? Date.now)();
  const found: Array<{ record: TokenRecord; status: SignInStatus }> = [];
  const sessions: Array<{ record: TokenRecord; status: IdpSessionStatus }> = [];
  if (options.tokenStore === 'memory') {
    say('info', 'the memory store keeps no sign-in after the end of the process: status has nothing to list');
  } else {
    const opened = await openAccountStores(
      {
        tokenStore: options.tokenStore,
        bridgeName: options.bridgeName,
        ...(options.tokenKeyFile === undefined ? {} : { tokenKeyFile: options.tokenKeyFile }),
      },
      'status',
      logger,
      environment,
    );
    if (!opened.ok) return 2;
    for (const { kind, store } of opened.stores) {
      try {
        for (const key of await store.list()) {
          if (options.account !== undefined && accountOf(key.identity) !== options.account) continue;
          const session = isIdpSessionKey(key);
          if (!session && options.url !== undefined && !sameUrl(key.url, options.url)) continue;
          const record = await store.read(key);
          if (record === undefined) continue;
          if (session) sessions.push({ record, status: idpSessionStatusOf(record, kind, now) });
          else found.push({ record, status: statusOf(record, kind, now) });
        }
      } catch (error) {
        say('warn', `status cannot read the ${kind} store: ${reason(error)}`);
      }
    }
  }
  found.sort(
    (a, b) =>
      a.status.server.localeCompare(b.status.server) || a.status.account.localeCompare(b.status.account),
  );
  // With a URL, the IdP sessions its sign-ins were made from (docs/sign-in.md#sign-in-idp-session).
  const shown = sessions
    .filter(
      ({ status }) =>
        options.url === undefined ||
        found.some(
          (entry) => entry.status.idpIssuer !== null && sameUrl(entry.status.idpIssuer, status.issuer),
        ),
    )
    .sort(
      (a, b) =>
        a.status.issuer.localeCompare(b.status.issuer) || a.status.account.localeCompare(b.status.account),
    );
  const texts = [
    ...found.map(({ record, status }) => statusText(status, record.expiresAt, now)),
    ...shown.map(({ record, status }) =>
      idpSessionText(status, expiryText(status.idTokenExpiresAt, record.expiresAt, now)),
    ),
  ];
  if (options.json)
    write(
      `${JSON.stringify(
        [...found, ...shown].map((entry) => entry.status),
        null,
        2,
      )}\n`,
    );
  else if (texts.length > 0) write(`${texts.join('\n\n')}\n`);
  if (texts.length === 0) {
    const which = options.account === undefined ? '' : ` of the account "${options.account}"`;
    say('info', `status found no stored sign-in${which}${options.url === undefined ? '' : ' for the URL'}`);
    return 1;
  }
  return 0;
}
