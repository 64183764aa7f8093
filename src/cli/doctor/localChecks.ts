/**
 * `doctor <url>`, what is on this machine (docs/doctor.md#doctor-checks): the token store in use
 * (the keychain answers, or the key of the file store is set), a stored sign-in for the URL and
 * its expiry (read as `status` reads it, src/cli/status.ts), and whether the redirect port is
 * free for a sign-in in the browser. Nothing here leaves the machine, nor prints a token.
 */
import { createServer } from 'node:net';
import type { Logger, LogLevel } from '../../ports/logger.js';
import type { TokenStoreChoice } from '../../oauth/store/openStore.js';
import { reason } from '../../oauth/store/record.js';
import { accountOf, openAccountStores, sameUrl, type AccountEnvironment } from '../accountStores.js';
import { relativeTime, serverOf, statusOf, type SignInStatus } from '../status.js';
import { result, type CheckResult } from './checks.js';

export interface LocalCheckInput {
  readonly url: string;
  readonly account: string;
  readonly tokenStore: TokenStoreChoice;
  readonly tokenKeyFile?: string;
  readonly bridgeName: string;
  readonly redirectPort: number;
  readonly environment: AccountEnvironment;
  readonly now: number;
}

/** The lines openAccountStores would log, kept for the detail of the check. */
function keeping(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    logger: {
      log: (_scope: string, _level: LogLevel, text: string) => void lines.push(text),
      enabled: () => true,
    },
  };
}

/** `token-store` and `stored-sign-in`. */
export async function storeChecks(input: LocalCheckInput): Promise<CheckResult[]> {
  if (input.tokenStore === 'memory') {
    return [
      result('token-store', 'ok', 'the memory store: every start signs in again'),
      result('stored-sign-in', 'skip', 'the memory store keeps no sign-in'),
    ];
  }
  const kept = keeping();
  const opened = await openAccountStores(
    {
      tokenStore: input.tokenStore,
      bridgeName: input.bridgeName,
      ...(input.tokenKeyFile === undefined ? {} : { tokenKeyFile: input.tokenKeyFile }),
    },
    'doctor',
    kept.logger,
    input.environment,
  );
  const notes = kept.lines.join('; ');
  if (!opened.ok || opened.stores.length === 0) {
    return [
      result(
        'token-store',
        'fail',
        notes === '' ? 'no token store opens' : notes,
        'unlock the keychain, or set MCP_BRIDGE_TOKEN_KEY (or --token-key-file) for the file store, or --token-store memory',
      ),
      result('stored-sign-in', 'skip', 'no token store opened'),
    ];
  }
  const kinds = opened.stores.map((s) => s.kind).join(' and ');
  const store = result(
    'token-store',
    notes === '' ? 'ok' : 'warn',
    `${kinds} ${opened.stores.length > 1 ? 'open' : 'opens'}${notes === '' ? '' : ` (${notes})`}`,
    notes === '' ? '' : 'unlock the keychain, or set MCP_BRIDGE_TOKEN_KEY for the file store',
  );
  const found: { status: SignInStatus; expiresAt: number | undefined }[] = [];
  for (const { kind, store: opened_ } of opened.stores) {
    try {
      for (const key of await opened_.list()) {
        if (!sameUrl(key.url, input.url) || accountOf(key.identity) !== input.account) continue;
        const record = await opened_.read(key);
        if (record !== undefined)
          found.push({ status: statusOf(record, kind, input.now), expiresAt: record.expiresAt });
      }
    } catch (error) {
      return [store, result('stored-sign-in', 'warn', `the ${kind} store cannot be read: ${reason(error)}`)];
    }
  }
  const first = found[0];
  if (first === undefined) {
    return [
      store,
      result(
        'stored-sign-in',
        'warn',
        `no stored sign-in for ${serverOf(input.url)} (account "${input.account}")`,
        'the bridge signs in in the browser at the first start',
      ),
    ];
  }
  const { status, expiresAt } = first;
  const expiry =
    expiresAt === undefined
      ? 'no lifetime given'
      : `the access token ${relativeTime(expiresAt, input.now) === 'expired' ? 'has expired' : `expires ${relativeTime(expiresAt, input.now)}`}`;
  const expired = status.accessTokenExpired === true;
  return [
    store,
    result(
      'stored-sign-in',
      expired && !status.refreshable ? 'warn' : 'ok',
      `in the ${status.store} store, issuer ${status.issuer}: ${expiry}${status.refreshable ? ', refreshable' : ''}`,
      expired && !status.refreshable ? 'the bridge signs in again in the browser at the next start' : '',
    ),
  ];
}

/** `redirect-port`: a sign-in in the browser listens on 127.0.0.1:<port>; is it free? */
export function redirectPortCheck(port: number): Promise<CheckResult> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      resolve(
        result(
          'redirect-port',
          'fail',
          `127.0.0.1:${port} is not free (${error.code ?? 'Error'})`,
          'close the program that listens on it, or give --redirect-port',
        ),
      ),
    );
    server.listen({ host: '127.0.0.1', port, exclusive: true }, () =>
      server.close(() => resolve(result('redirect-port', 'ok', `127.0.0.1:${port} is free`))),
    );
  });
}
