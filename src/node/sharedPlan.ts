/**
 * What the caller of the shared host makes of a shim's hello (docs/shared.md#shared-library): a
 * session's plan (its upstream, the key it shares, its settings), or a refusal. The executable's
 * plan is src/cli/sharedPlanOf.ts.
 */
import type { LogLevel } from '../ports/logger.js';
import type { ConsentRelay, UpstreamAuth } from '../ports/signIn.js';
import type { SharedSessionSettings } from './sharedSession.js';
import type { StdioUpstream } from './upstreamConnector.js';

/** The sign-in of a URL upstream, set up once per key (as `serve` does for all its sessions). */
export type SharedSignIn =
  | {
      readonly ok: true;
      readonly auth: UpstreamAuth;
      readonly consent: ConsentRelay;
      readonly close: () => void;
    }
  | { readonly ok: false; readonly message: string };

/** What the caller made of a hello. */
export type SharedPlan =
  | {
      readonly kind: 'session';
      /** sha256 hex of the sharing key (src/node/sharedKey.ts); only its prefix is ever shown. */
      readonly key: string;
      /** The command's name or the URL's origin: no secret. */
      readonly summary: string;
      readonly upstream: StdioUpstream;
      readonly env: Readonly<Record<string, string | undefined>>;
      readonly maxLineBytes: number;
      readonly maxResponseBytes: number;
      /** How long the upstream stays after its last session ended. */
      readonly graceMs: number;
      readonly logLevel: LogLevel;
      readonly program: string;
      /** Lines logged at the start of the session (the command line's warnings). */
      readonly warnings: readonly string[];
      readonly session: Omit<SharedSessionSettings, 'connect' | 'logger' | 'signIn' | 'telemetry'>;
      /**
       * Set up with the upstream of the key, once; its sign-in line goes to `writeSignInLine`,
       * which writes it to the stderr of every session on the key.
       */
      readonly signIn?: (writeSignInLine: (line: string) => void) => Promise<SharedSignIn>;
    }
  /** Not a session: these stderr lines, then this exit code (invalid arguments: 2). */
  | { readonly kind: 'refuse'; readonly lines: readonly string[]; readonly code: number };

/** A session's plan: what the upstream of its key is made of, and the session's own settings. */
export type SessionPlan = SharedPlan & { readonly kind: 'session' };
