/**
 * What the durable stores share: the hashed name of a record (file name, keychain account, lock
 * file), the reserved key of the index, and the check of a record read back (docs/sign-in.md#sign-in-stores
 * ). A hash keeps the server URL, which may hold a key in its query, out of every name.
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../../ports/logger.js';
import { isDpopKey } from '../dpop/key.js';
import type { RecordKey, TokenRecord } from './types.js';

/** The key of the index of stored sign-ins (docs/sign-in.md#sign-in-stores: a record under `urn:<project>:index`). */
export const INDEX_KEY: RecordKey = { url: 'urn:mcp-bridge-sdk:index', identity: 'index' };

/**
 * The line scope of the store messages (docs/logging.md#logging-line-format). An executable logs them
 * under its profile's scope instead (storeLogger).
 */
export const STORE_SCOPE = 'tokens';

/**
 * The logger to give the stores of an executable: their lines (scope STORE_SCOPE) come out under
 * `scope`, the profile's log scope (`vscode` for `mcp-bridge-vscode`, as the reference does).
 */
export const storeLogger = (logger: Logger, scope: string): Logger => ({
  enabled: (level) => logger.enabled(level),
  log: (lineScope, level, text) => logger.log(lineScope === STORE_SCOPE ? scope : lineScope, level, text),
});

/** SHA-256 of `url`, a newline and `identity`, in hex: the name of a record everywhere. */
export const recordId = (key: RecordKey): string =>
  createHash('sha256').update(`${key.url}\n${key.identity}`).digest('hex');

const isString = (value: unknown): value is string => typeof value === 'string';
const isOptional = <T>(value: unknown, check: (v: unknown) => v is T): boolean =>
  value === undefined || check(value);
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** A stored value that has the shape of a TokenRecord (version 1), or undefined. */
export function parseRecord(value: unknown): TokenRecord | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const client = r['client'] as Record<string, unknown> | null | undefined;
  const ok =
    r['version'] === 1 &&
    isString(r['url']) &&
    isString(r['identity']) &&
    isString(r['issuer']) &&
    isString(r['resource']) &&
    isString(r['accessToken']) &&
    isString(r['tokenType']) &&
    isNumber(r['savedAt']) &&
    isOptional(r['expiresAt'], isNumber) &&
    isOptional(r['refreshToken'], isString) &&
    isOptional(r['refreshInFlight'], isString) &&
    isOptional(r['scope'], isString) &&
    isOptional(r['grant'], isString) &&
    isOptional(r['idpIssuer'], isString) &&
    isOptional(r['idToken'], isString) &&
    (r['dpopKey'] === undefined || isDpopKey(r['dpopKey'])) &&
    typeof client === 'object' &&
    client !== null &&
    isString(client['clientId']) &&
    isString(client['source']) &&
    isString(client['authMethod']) &&
    isOptional(client['clientSecret'], isString);
  return ok ? (value as TokenRecord) : undefined;
}

/** The message of an error, on one line and short, for log lines and exit-2 diagnostics. */
export function reason(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}
