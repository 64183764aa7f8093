/**
 * What serveStdio and serveHttp both take: the bridge of a profile in front of one upstream
 * (docs/cli.md#cli-forms, docs/serve.md#serve-library). Each entry adds its own transport's
 * settings. Node only.
 */
import { readFileSync } from 'node:fs';
import type { OperatorFunction } from 'rxjs';
import type { BridgeLimits } from '../bridge/config.js';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import type { Logger } from '../ports/logger.js';
import type { ConsentRelay, UpstreamAuth } from '../ports/signIn.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';

/** Settings of the bridge and its upstream, shared by serveStdio and serveHttp. */
export interface BridgeProcessOptions {
  /** The bridge's version, the fallback `serverInfo.version`. Default: this package's version. */
  readonly version?: string;
  /** `serverInfo.name` when the upstream gives none. Default: command basename, URL host, profile name. */
  readonly name?: string;
  /** Default: lines `<profile name>: <scope>: <level>: <text>` on stderr from level `info`. */
  readonly logger?: Logger;
  /** Limits of the bridge (of each session's, under serveHttp); missing ones take DEFAULT_LIMITS. */
  readonly limits?: Partial<BridgeLimits>;
  /** Longest line from the client or a child upstream, in bytes. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /** Largest HTTP response body, in bytes. Default 64 MiB. */
  readonly maxResponseBytes?: number;
  /**
   * Wraps the bridge in operators of the product's own (an allow-list, a tracing tap): gets the
   * bridge, returns the chain from decoded client lines to client frames. Default: the bridge.
   */
  readonly compose?: (bridge: OperatorFunction<Inbound, Frame>) => OperatorFunction<Inbound, Frame>;
  /** The environment of the HTTP edge (proxy variables) and of the upstream child. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * The sign-in of a URL upstream (docs/sign-in.md#sign-in-trigger, docs/sign-in.md#sign-in-consent), set up by the caller (token
   * store, authorization server) and released by it after the entry ended: the HTTP upstream
   * asks `auth` for its Authorization header, each client connection binds `consent`, and a
   * completed sign-in (`auth.signedIn$`) reopens the listen stream. Under serveHttp one sign-in
   * and one refresh serve every session. Absent: no sign-in.
   */
  readonly signIn?: { readonly auth: UpstreamAuth; readonly consent: ConsentRelay };
  /**
   * The schema checks of input rounds (BridgeDeps.checks). Default: ajvInputChecks of this entry,
   * which load ajv and the 2025-11-25 schema on the first input round.
   */
  readonly checks?: InputSchemaChecks;
}

/** The default of `maxLineBytes` and `maxResponseBytes`. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * This package's version, the default of `version`: read from the package.json beside the built
 * `dist/`; `0.0.0` where there is none (the sources run by a test runner, a bundle of one's own).
 */
export function packageVersion(): string {
  try {
    const text = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '0.0.0';
  } catch {
    return '0.0.0';
  }
}
