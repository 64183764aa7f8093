/**
 * The two seams between the sign-in (src/oauth) and the rest of the bridge (OAUTH-PLAN.md):
 * the HTTP upstream asks an {@link UpstreamAuth} for its Authorization header and hands it each
 * 401/403; the sign-in asks the client through a {@link ConsentPort} once `notifications/initialized`
 * arrived (reference-behaviors.md §6.7).
 *
 * Declared here until src/oauth/upstreamAuth.ts exports the same interfaces; then this file only
 * re-exports them.
 */
import type { Observable } from 'rxjs';

export interface UpstreamAuth {
  /** The Authorization header value for the next request, or undefined before any sign-in. */
  header(): string | undefined;
  /**
   * After a 401/403 of one request: resolves when a retry may go (new token), or rejects with a
   * BridgeError of a §6.10 cause.
   */
  challenge(input: {
    status: 401 | 403;
    wwwAuthenticate: string | undefined;
    method: string;
    signal: AbortSignal;
  }): Promise<void>;
  /** Emits after each completed sign-in (reopenListen's signIn$). */
  readonly signedIn$: Observable<void>;
}

export interface ConsentPort {
  /** 'initializing' until notifications/initialized arrived, then 'ready' (reference §6.7). */
  phase(): 'initializing' | 'ready';
  /** Whether the client declared `elicitation.url` in initialize. */
  clientSupportsUrl(): boolean;
  /**
   * Sends `elicitation/create {mode:"url", message, url, elicitationId}` to the client; resolves
   * with its action. Rejects (BridgeError) when the client request behind it was cancelled or the
   * client went away.
   */
  askUrl(input: {
    url: string;
    message: string;
    elicitationId: string;
    signal: AbortSignal;
  }): Promise<'accept' | 'decline' | 'cancel'>;
  /** Sends `notifications/elicitation/complete {elicitationId}` (before the result of the request). */
  complete(elicitationId: string): void;
}
