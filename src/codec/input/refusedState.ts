/**
 * The refused request state rule (docs/input-rounds.md#input-refused-state): a round that echoed
 * `requestState` and got `-32602` tells the user to run the request again.
 * Pure: no rxjs, no node:*.
 */
import { formatDuration, INVALID_PARAMS } from '../../protocol/errors.js';
import type { ErrorObject, JsonObject } from '../../protocol/jsonrpc.js';
import type { InputLogEntry } from './types.js';

/** What the client gets instead of the upstream error, and the warning to log. */
export type RefusedStateOutcome =
  | { readonly result: JsonObject; readonly log: InputLogEntry }
  | { readonly error: ErrorObject; readonly log: InputLogEntry };

/** The text the user reads; `again` says what to do: run the tool again, or send the request again. */
export function refusedStateText(upstreamMessage: string, again: string): string {
  return (
    'The upstream server refused the saved state of the request. The answers possibly came after the ' +
    `state expired, or the server started again. Upstream message: ${upstreamMessage}. ${again}`
  );
}

/**
 * Applies the rule to an upstream error of one round.
 * - Only a `-32602` of a round that carried `requestState` is changed; anything else gives
 *   undefined: the error passes unchanged.
 * - `tools/call` gets a result `{content:[{type:"text",text}],isError:true}` that ends
 *   `Run the tool again.`
 * - Other methods get a `-32602` error with the text ending `Send the request again.` and the
 *   upstream `data` (no cause).
 *
 * @param inputWaitMs how long the client took to answer before this round, for the warning.
 */
export function refusedStateRule(
  method: string,
  error: ErrorObject,
  carriedRequestState: boolean,
  inputWaitMs: number,
): RefusedStateOutcome | undefined {
  if (!carriedRequestState || error.code !== INVALID_PARAMS) return undefined;
  const log: InputLogEntry = {
    level: 'warn',
    text: `the upstream server refused the request state after an input wait of ${formatDuration(inputWaitMs)}`,
  };
  if (method === 'tools/call') {
    const text = refusedStateText(error.message, 'Run the tool again.');
    return { result: { content: [{ type: 'text', text }], isError: true }, log };
  }
  const message = refusedStateText(error.message, 'Send the request again.');
  return {
    error:
      error.data === undefined
        ? { code: INVALID_PARAMS, message }
        : { code: INVALID_PARAMS, message, data: error.data },
    log,
  };
}
