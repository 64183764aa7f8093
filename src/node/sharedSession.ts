/**
 * One client session of the shared bridge (docs/shared.md#shared-sessions): what serveStdio does
 * for its one client, on the records of a shim instead of stdio, and on a view of the upstream of
 * its key instead of an upstream of its own. The same bridge, the same end of input (the watchdog
 * after the client's stdin closed or the shim's first signal), the same exit codes
 * (docs/lifecycle.md#lifecycle-end-of-input); the signals themselves are the shim's.
 */
import { Subject, takeUntil, tap } from 'rxjs';
import type { Observable, OperatorFunction } from 'rxjs';
import { decodeLines } from '../../operators/decodeLines.js';
import { encodeFrames } from '../../operators/encodeFrames.js';
import { DEFAULT_LIMITS } from '../bridge/config.js';
import type { BridgeLimits } from '../bridge/config.js';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import type { Logger } from '../ports/logger.js';
import type { ConsentRelay, UpstreamAuth } from '../ports/signIn.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { UpstreamConnection } from '../ports/upstream.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';
import { createProfileBridge } from '../profiles/bridge.js';
import type { Profile } from '../profiles/profile.js';
import { exitLines } from './exitReport.js';
import { DEFAULT_WATCHDOG_MS } from './serveStdio.js';

/** The shim's side of a session, as records (src/edges/sharedSocket/records.ts). */
export interface SharedSessionIo {
  /** The client's bytes; completes when the client closed its stdin. */
  readonly input$: Observable<Uint8Array>;
  /** The shim's first SIGTERM or SIGINT: the session stops as at the end of input. */
  readonly stop$: Observable<void>;
  /** Writes one frame line (with its newline), in pieces or not. */
  readonly write: (line: string | readonly (string | Uint8Array)[]) => void;
}

/** What a session is made of: the profile's bridge on a view of the shared upstream. */
export interface SharedSessionSettings {
  readonly profile: Profile;
  readonly connect: () => Observable<UpstreamConnection>;
  /** Writes to this session's stderr records, at this session's level. */
  readonly logger: Logger;
  readonly version: string;
  readonly fallbackName: string;
  readonly limits?: Partial<BridgeLimits>;
  readonly checks: InputSchemaChecks;
  readonly compose?: (bridge: OperatorFunction<Inbound, Frame>) => OperatorFunction<Inbound, Frame>;
  readonly maxLineBytes: number;
  readonly watchdogMs?: number;
  /** The scope of the session's own lines (the watchdog), as serveStdio's `scope`. */
  readonly scope: string;
  readonly signIn?: { readonly auth: UpstreamAuth; readonly consent: ConsentRelay };
  /** The traces and metrics of the session's key (docs/shared.md#shared-telemetry); absent when off. */
  readonly telemetry?: Telemetry | undefined;
}

/** A running session: its exit code once it ended, and `end` for a shim that went away. */
export interface SharedSession {
  readonly code: Promise<number>;
  /** The shim's connection closed: the bridge is unsubscribed, its upstream requests cancelled. */
  readonly end: () => void;
}

export function runSharedSession(io: SharedSessionIo, s: SharedSessionSettings): SharedSession {
  const profileBridge = createProfileBridge(
    s.profile,
    { version: s.version, fallbackName: s.fallbackName, limits: { ...DEFAULT_LIMITS, ...s.limits } },
    {
      connect: s.connect,
      logger: s.logger,
      checks: s.checks,
      ...(s.signIn === undefined ? {} : { consent: s.signIn.consent, signIn$: s.signIn.auth.signedIn$ }),
      ...(s.telemetry === undefined ? {} : { telemetry: s.telemetry }),
    },
  );
  const bridge = s.compose === undefined ? profileBridge : s.compose(profileBridge);
  const watchdogMs = s.watchdogMs ?? DEFAULT_WATCHDOG_MS;
  const stop$ = new Subject<void>();
  let resolveCode: (code: number) => void = () => undefined;
  const code = new Promise<number>((resolve) => {
    resolveCode = resolve;
  });
  let watchdog: NodeJS.Timeout | undefined;
  const armWatchdog = (): void => {
    watchdog ??= setTimeout(() => {
      s.logger.log(
        s.scope,
        'warn',
        `the bridge did not stop in ${watchdogMs / 1000} s after the end of stdin, thus it stops now`,
      );
      subscription.unsubscribe();
      resolveCode(0);
    }, watchdogMs);
  };
  const stopSubscription = io.stop$.subscribe(() => {
    stop$.next();
    armWatchdog();
  });
  const chunks$ = io.input$.pipe(takeUntil(stop$));
  const inbound$ = chunks$.pipe(
    tap({ complete: armWatchdog }),
    decodeLines({ maxLineBytes: s.maxLineBytes }),
  );
  const subscription = inbound$.pipe(bridge, encodeFrames({ rawResults: true })).subscribe({
    next: io.write,
    complete: () => resolveCode(0),
    error: (error: unknown) => {
      for (const line of exitLines(error, s.logger.enabled('debug')))
        s.logger.log('bridge', line.level, line.text);
      resolveCode(1);
    },
  });
  void code.then(() => {
    if (watchdog !== undefined) clearTimeout(watchdog);
    stopSubscription.unsubscribe();
  });
  return {
    code,
    end: () => {
      subscription.unsubscribe();
      resolveCode(0);
    },
  };
}
