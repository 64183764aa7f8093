/**
 * The telemetry seam (docs/observability.md): the bridge calls these plain, synchronous functions
 * at the start and end of a client request, of each upstream round and of each input request sent
 * to the client. The OpenTelemetry implementation (src/telemetry/) is loaded only when the
 * environment turns it on; without it the bridge calls nothing (`deps.telemetry` absent), so
 * nothing here costs a request anything when telemetry is off.
 *
 * No function takes a header value, a token, an argument value, a form answer or frame content:
 * only names, ids, counts and kinds (docs/observability.md#observability-secrets).
 */

/** A client request as telemetry sees it: names and ids only. */
export interface RequestInfo {
  /** `mcp.method.name`. */
  readonly method: string;
  /** The tool or prompt name (`tools/call`, `prompts/get`); never a resource URI (its query may hold a secret). */
  readonly target?: string;
  readonly requestId: string | number;
  /** The client's protocol revision (`mcp.protocol.version`), when the session has one. */
  readonly protocolVersion?: string;
  /** The W3C trace context the client sent in `_meta` (`traceparent`, `tracestate`), when it did. */
  readonly traceparent?: string;
  readonly tracestate?: string;
}

/** The W3C trace context to send upstream in `_meta` (and as HTTP headers). */
export interface TraceContext {
  readonly traceparent: string;
  readonly tracestate?: string;
}

/** How a round ended: its error type, or the kinds of input it asked for (`input_required`). */
export interface RoundOutcome {
  readonly errorType?: string;
  readonly inputKinds?: readonly string[];
}

/** One upstream round in progress. */
export interface RoundHandle {
  /** The context of this round for the upstream (its span is the server's parent). */
  readonly context: TraceContext | undefined;
  end(outcome: RoundOutcome): void;
}

/** Something that ends once, with an error type when it failed. */
export interface EndHandle {
  end(errorType?: string): void;
}

/** One client request in progress. */
export interface RequestHandle extends EndHandle {
  roundStarted(round: number): RoundHandle;
  /** An input request sent to the client: `elicitation`, `sampling` or `roots`. */
  inputRequested(kind: string): EndHandle;
}

/** What a connection's telemetry does; one per client connection (its transport and session are fixed). */
export interface Telemetry {
  requestStarted(info: RequestInfo): RequestHandle;
  /**
   * A request refused by a limit of the connection before it ran (`too_many_requests`), by the
   * limit's name (docs/observability.md#observability-metrics). Optional: traces have no span for it.
   */
  limitRefused?(limit: string): void;
}

/**
 * A step of the sign-in of a URL upstream as telemetry sees it
 * (docs/observability.md#observability-sign-in): the grant and the authorization server's origin
 * at most; never a token, a URL path or query, a header value or a code.
 */
export interface SignInStepInfo {
  /** The OAuth grant: `authorization_code` (a sign-in), `refresh_token` (a refresh). */
  readonly grant: string;
  /** The authorization server's origin (`https://as.example`), when known. */
  readonly server?: string;
  /** The trace context of the upstream request that needed the step, when it had one. */
  readonly parent?: TraceContext | undefined;
}

/** How a sign-in step ended: `ok`, `refused` by the server (a refresh), or `failed` with its error type. */
export type SignInOutcome = 'ok' | 'refused' | 'failed';

/** One sign-in step in progress; ends once. */
export interface SignInStepHandle {
  end(outcome: SignInOutcome, errorType?: string): void;
}

/**
 * The telemetry of the sign-in of one URL upstream: a span for a sign-in, a refresh and a wait for
 * the token lock (docs/sign-in.md#sign-in-lock). NO_SIGN_IN_TELEMETRY does nothing.
 */
export interface SignInTelemetry {
  signInStarted(info: SignInStepInfo): SignInStepHandle;
  refreshStarted(info: SignInStepInfo): SignInStepHandle;
  /** A wait for the token lock; `end` when it is held, or with the error type when the wait failed. */
  lockWaitStarted(parent: TraceContext | undefined): EndHandle;
}

const NO_STEP: SignInStepHandle & EndHandle = { end: () => undefined };

/** The default of the sign-in: no span, nothing done. */
export const NO_SIGN_IN_TELEMETRY: SignInTelemetry = {
  signInStarted: () => NO_STEP,
  refreshStarted: () => NO_STEP,
  lockWaitStarted: () => NO_STEP,
};
