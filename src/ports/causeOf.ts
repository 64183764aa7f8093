/**
 * The cause of a failure as a log line may show it (src/bridge/rpcConnection.ts,
 * src/bridge/rpcInbound.ts, src/node/exitReport.ts):
 * a code and a name, never a frame content.
 */
import { isBridgeError } from '../protocol/bridgeError.js';

/** The cause of a failure for a log line: its code and name (never a frame content). */
export function causeOf(error: unknown): string {
  if (isBridgeError(error)) return error.detail === undefined ? error.code : `${error.code}: ${error.detail}`;
  if (!(error instanceof Error)) return typeof error;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,64}$/.test(code) ? `${error.name} ${code}` : error.name;
}
