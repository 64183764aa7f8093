/**
 * The seams of the sign-in: what the HTTP upstream asks of the
 * sign-in, what the sign-in asks of the bridge, and its configuration and dependencies.
 * src/oauth/upstreamAuth.ts re-exports all of them.
 */
import type { Observable } from 'rxjs';
import type { Logger } from '../bridge/log.js';
import type { openBrowser } from './browser.js';
import type { startReceiver } from './receiver.js';
import type { SignInLock, TokenStore } from './store/types.js';

/**
 * The sign-in as the HTTP upstream sees it: the header of each POST, and what to do after a
 * 401/403 (docs/sign-in.md#sign-in-trigger).
 */
export interface UpstreamAuth {
  /** The Authorization header value for the next request, or undefined before any sign-in. */
  header(): string | undefined;
  /** After a 401/403 of one request: resolves when a retry may go (new token), or rejects with a BridgeError of a §6.10 cause. */
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
  }): Promise<void>;
  /** Emits after each completed sign-in, and after each refresh or stored sign-in that changed the token (reopenListen's signIn$). */
  readonly signedIn$: Observable<void>;
  /**
   * Resolves once the stored record was read: from then on
   * header() gives a stored token, so the first request needs no 401 round trip. Never rejects.
   */
  load?(): Promise<void>;
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

/** The settings of one sign-in identity (command-line options, docs/cli.md#cli-forms). */
export interface SignInConfig {
  /** The MCP endpoint (never logged). */
  readonly url: string;
  /** 'mcp-bridge-vscode' */
  readonly bridgeName: string;
  /** 'mcp-bridge-vscode (mcp-bridge-sdk)' */
  readonly clientName: string;
  /** Default 41894. */
  readonly redirectPort: number;
  /** Default 'default'. */
  readonly account: string;
  readonly clientId?: string;
  readonly clientIssuer?: string;
  /** From MCP_BRIDGE_CLIENT_SECRET only. */
  readonly clientSecret?: string;
  /** Explicit --client-metadata-url; `none` turns the client ID metadata document off. */
  readonly clientMetadataUrl?: string;
  /** The profile's published document (SignInIdentity.metadataDocumentUrl); absent: none. */
  readonly defaultMetadataUrl?: string;
  /** The only redirect port that document lists (SignInIdentity.redirectPort); default 41894. */
  readonly defaultMetadataPort?: number;
  readonly noBrowser: boolean;
  /** --sign-in-timeout, default 300 s. */
  readonly signInTimeoutMs: number;
  /** SANDBOX_RUNTIME === '1' (docs/sign-in.md#sign-in-sandbox). */
  readonly sandbox: boolean;
  /** --header-env variable names, removed from the browser's env. */
  readonly secretVariables: readonly string[];
  /**
   * After `notifications/initialized`, a client without URL elicitation gets the browser
   * (SignInIdentity.browserWithoutUrlElicitation); absent: `no_consent` (the reference rule).
   */
  readonly browserWithoutUrlElicitation?: boolean;
}

export interface SignInDeps {
  /** Through the upstream's undici dispatcher (CA, proxy). */
  readonly fetch: typeof globalThis.fetch;
  readonly store: TokenStore;
  readonly lock: SignInLock;
  readonly logger: Logger;
  readonly env: NodeJS.ProcessEnv;
  readonly consent: ConsentPort;
  readonly now?: () => number;
  // seams for tests; default to B's implementations:
  readonly startReceiver?: typeof startReceiver;
  readonly openBrowser?: typeof openBrowser;
  /**
   * Writes the sign-in line `<bridge name>: sign in at <URL>`
   * (docs/logging.md#logging-line-format: the one line outside the `<scope>: <level>:` format). Default: one write
   * to stderr.
   */
  readonly writeSignInLine?: (line: string) => void;
}
