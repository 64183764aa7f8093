/**
 * The seams between the sign-in (src/oauth) and the rest of the bridge: the HTTP upstream
 * (src/edges/http) asks an {@link UpstreamAuth} for its Authorization header and hands it each
 * 401/403; the sign-in asks the client through a {@link ConsentPort} once
 * `notifications/initialized` arrived (docs/sign-in.md#sign-in-consent), which a
 * {@link ConsentRelay} forwards to the connection of the moment (src/bridge/consent.ts). Types
 * only, so that neither side loads the other (ARCHITECTURE.md).
 */
import type { Observable } from 'rxjs';
import type { SignInTelemetry, TraceContext } from './telemetry.js';

/**
 * The sign-in as the HTTP upstream sees it: the header of each POST, and what to do after a
 * 401/403 (docs/sign-in.md#sign-in-trigger).
 */
export interface UpstreamAuth {
  /** The Authorization header value for the next request, or undefined before any sign-in. */
  header(): string | undefined;
  /** The `DPoP` proof header value for the next request, when the token is DPoP-bound (docs/sign-in.md#sign-in-dpop). */
  proof?(): string | undefined;
  /**
   * A 401 of the resource with `WWW-Authenticate: DPoP error="use_dpop_nonce"` (RFC 9449 §9):
   * `new` when its `DPoP-Nonce` is new and kept (the request may go once more), `again` when
   * it gives no new one, `none` when the 401 is no nonce challenge (docs/sign-in.md#sign-in-dpop).
   */
  takeNonce?(input: {
    wwwAuthenticate: string | undefined;
    dpopNonce: string | undefined;
  }): 'new' | 'again' | 'none';
  /** After a 401/403 of one request: resolves when a retry may go (new token), or rejects with a BridgeError of a docs/errors.md#errors-sign-in cause. */
  challenge(input: {
    status: 401 | 403;
    wwwAuthenticate: string | undefined;
    method: string;
    signal: AbortSignal;
    /**
     * The Authorization header the refused request carried
     * (undefined when it had none). Without it the sign-in takes the current header as the
     * refused one, which is wrong when another sign-in changed it in between.
     */
    authorization?: string | undefined;
    /**
     * The client connection whose request got the 401/403 (ExchangeOptions.consent): an
     * interactive sign-in asks it, and no other (docs/sign-in.md#sign-in-consent). Absent: the
     * relay's port.
     */
    consent?: ConsentPort | undefined;
    /**
     * The trace context of the refused request (its `traceparent` in `_meta`), when it had one:
     * the parent of the spans of the sign-in (docs/observability.md#observability-sign-in).
     */
    trace?: TraceContext | undefined;
  }): Promise<void>;
  /** Emits after each completed sign-in, and after each refresh or stored sign-in that changed the token (reopenListen's signIn$). */
  readonly signedIn$: Observable<void>;
  /**
   * Resolves once the stored record was read: from then on
   * header() gives a stored token, so the first request needs no 401 round trip. Never rejects.
   */
  load?(): Promise<void>;
  /**
   * Sets the telemetry of the sign-in, the refresh and the wait for the token lock
   * (docs/observability.md#observability-sign-in); until then none.
   */
  observe?(telemetry: SignInTelemetry): void;
}

/**
 * What the sign-in asks of the client connection: whether it may ask, and the URL elicitation
 * of a sign-in after `notifications/initialized` (docs/sign-in.md#sign-in-consent).
 */
export interface ConsentPort {
  /** 'initializing' until notifications/initialized arrived, then 'ready' (docs/sign-in.md#sign-in-consent). */
  phase(): 'initializing' | 'ready';
  /** Whether the client declared `elicitation.url` in initialize. */
  clientSupportsUrl(): boolean;
  /** Sends `elicitation/create {mode:"url", message, url, elicitationId}` to the client; resolves with its action. Rejects (BridgeError) when the client request behind it was cancelled or the client went away. */
  askUrl(input: {
    url: string;
    message: string;
    elicitationId: string;
    signal: AbortSignal;
  }): Promise<'accept' | 'decline' | 'cancel'>;
  /** Sends `notifications/elicitation/complete {elicitationId}` (before the result of the request). */
  complete(elicitationId: string): void;
}

/** A port that forwards to the connection bound now; without one, nobody can be asked. */
export interface ConsentRelay {
  /** What the sign-in holds for the life of the process. */
  readonly port: ConsentPort;
  /** Binds the port of a connection; the returned function unbinds it (at the end of the connection). */
  bind(port: ConsentPort): () => void;
  /**
   * A later sign-in of a client without URL elicitation opens the browser (the profile's
   * SignInIdentity.browserWithoutUrlElicitation): the start line of such a client says so.
   */
  readonly browserWithoutUrlElicitation?: boolean;
}
