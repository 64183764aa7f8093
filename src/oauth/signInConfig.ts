/**
 * The configuration and the dependencies of one sign-in (createUpstreamAuth of upstreamAuth.ts).
 * The seams it offers and uses, UpstreamAuth and ConsentPort, are in src/ports/signIn.ts.
 */
import type { Logger } from '../ports/logger.js';
import type { GrantName } from './grantName.js';
import type { IdpSettings } from './idp/types.js';
import type { ConsentPort } from '../ports/signIn.js';
import type { openBrowser } from './browser.js';
import type { startReceiver } from './receiver.js';
import type { SignInLock, TokenStore } from './store/types.js';

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
  /** False with `--no-dpop` (docs/sign-in.md#sign-in-dpop); absent: DPoP when a server asks for it. */
  readonly dpop?: boolean;
  /** `--grant` (grants.ts); absent: the browser sign-in (authorization code). */
  readonly grant?: GrantName;
  /** `--client-key-file`: the PEM private key of `private_key_jwt` (read at each grant, never kept). */
  readonly clientKeyFile?: string;
  /** `--assertion-file`: the platform's JWT of the jwt-bearer grant (read anew at each grant). */
  readonly assertionFile?: string;
  /** The IdP of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag). */
  readonly idp?: IdpSettings;
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
