/**
 * Types shared by the input-request codec (docs/input-rounds.md#input-rounds): what a round asks the
 * client, what the client answered, and what one client request remembers across rounds.
 * Pure: no rxjs, no node:*.
 */
import type { Cause } from '../../protocol/errors.js';
import type { InputSchemaChecks } from './checks.js';
import type { ErrorObject, Frame, JsonObject, NotificationFrame } from '../../protocol/jsonrpc.js';

/** A failure of the input requests of one client request: the client request fails with it. */
export interface InputFailure {
  readonly cause: Cause;
  readonly detail: string;
}

/** A URL elicitation the user accepted in this client request (docs/input-rounds.md#input-url-again). */
export interface AcceptedUrl {
  readonly url: string;
  readonly elicitationId: string;
}

/**
 * What one client request remembers across its rounds: the accepted URLs whose
 * `notifications/elicitation/complete` is not sent yet. A completed URL leaves the list, so each
 * accepted URL is completed exactly once.
 */
export interface InputSession {
  readonly acceptedUrls: readonly AcceptedUrl[];
}

export const EMPTY_INPUT_SESSION: InputSession = Object.freeze({ acceptedUrls: Object.freeze([]) });

/**
 * What a bridge request asks the client, and how its answer is checked.
 * - `form`: a form elicitation; accepted content is checked against `requestedSchema`.
 * - `emptyForm`: a form without properties, sent as the one-choice Continue form.
 * - `url`: a URL elicitation with a bridge-made `elicitationId`.
 * - `urlAgain`: an accepted URL asked again, sent as the Continue form.
 * - `sampling`, `roots`: `sampling/createMessage`, `roots/list`.
 */
export type InputAskKind = 'form' | 'emptyForm' | 'url' | 'urlAgain' | 'sampling' | 'roots';

/** One bridge request of a round, before it gets its `b-N` id. */
export interface InputAsk {
  /** The key of the input request in `inputRequests`; the answer goes under the same key. */
  readonly key: string;
  readonly kind: InputAskKind;
  /** The method of the request to the client. */
  readonly method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  /** The params of the request to the client; absent for `roots/list`. Never holds `task`. */
  readonly params?: JsonObject;
  /** For `form`: the schema that accepted content must match. */
  readonly requestedSchema?: JsonObject;
  /** For `url` and `urlAgain` asks. */
  readonly url?: AcceptedUrl;
}

/** The answer of the client to one bridge request (a response frame, or a bad line with its id). */
export interface ClientReply {
  readonly result?: JsonObject;
  readonly error?: ErrorObject;
  readonly badLine?: true;
}

/** A log line for the caller, without the `request <id> (<method>): ` prefix the caller adds. */
export interface InputLogEntry {
  readonly level: 'warn' | 'info';
  readonly text: string;
}

/** The params a retry adds to the original request (docs/input-rounds.md#input-rounds). */
export interface RetryExtras {
  readonly inputResponses?: JsonObject;
  readonly requestState?: string;
}

/** The plan of one round (docs/input-rounds.md#input-rounds to docs/input-rounds.md#input-url-again). */
export interface RoundPlan {
  /** The keys of the input requests, in their order. */
  readonly keys: readonly string[];
  /** The bridge requests to send, all at once, in the order of the keys. */
  readonly asks: readonly InputAsk[];
  /** Input responses decided without the client (a refused URL gets `decline`), by key. */
  readonly immediate: JsonObject;
  /** Warnings to log (refused URLs). */
  readonly warnings: readonly InputLogEntry[];
  /** The `elicitationId`s to complete before the asks: accepted URLs this round no longer asks. */
  readonly complete: readonly string[];
  /** True when the result had `inputRequests`: the retry then carries `inputResponses`. */
  readonly answersInputRequests: boolean;
  /** The request state to echo byte for byte, when the result had one. */
  readonly requestState?: string;
  /** The number of input requests of the round (for the timeout detail). */
  readonly inputRequestCount: number;
  /** The session after this round's completions. */
  readonly session: InputSession;
  /** The schema checks the answers of this round get (those of the plan's context). */
  readonly checks: InputSchemaChecks;
}

/** An answer of the client to a bridge request `b-N`: a result, an error, or a bad line with that id. */
export interface ClientAnswer extends ClientReply {
  readonly id: string;
}

/** What the round driver emits for one client request. */
export type RoundOutput =
  /** Bridge requests `b-N`, `notifications/cancelled` for `b-N`, `notifications/elicitation/complete`. */
  | { readonly type: 'toClient'; readonly frame: Frame }
  /** Upstream progress of any round, as it came; the caller keeps it increasing and maps the token (src/codec/progress.ts). */
  | { readonly type: 'progress'; readonly frame: NotificationFrame }
  /** The final upstream result that is not `input_required`, unshaped. */
  | { readonly type: 'result'; readonly result: JsonObject }
  /** The client request fails with this error. */
  | { readonly type: 'error'; readonly error: ErrorObject };
