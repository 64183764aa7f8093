/**
 * The upstreams of the shared host, one per sharing key (docs/shared.md#shared-lifecycle): made on
 * the first session of a key (with the key's sign-in, once), kept `graceMs` after the last session
 * of the key ended, then stopped. The upstream of a failed or cancelled `initialize` that serves
 * no other session stops at once (sharedAttempt.ts). Each keeps the known `server/discover` result of its upstream
 * (sharedDiscover.ts, docs/shared.md#shared-warm).
 */
import type { FlowControl } from '../edges/flowControl.js';
import type { Logger } from '../ports/logger.js';
import { knownDiscover } from './sharedDiscover.js';
import type { KnownDiscover } from './sharedDiscover.js';
import type { SessionPlan, SharedSignIn } from './sharedPlan.js';
import { entryTelemetry } from './sharedTelemetry.js';
import type { KeyTelemetry } from './sharedTelemetry.js';
import { sharedUpstream } from './sharedUpstream.js';
import { createUpstreamConnector } from './upstreamConnector.js';

/** One upstream of a key and the sessions on it. */
export interface Entry {
  readonly key: string;
  readonly summary: string;
  readonly started: number;
  readonly shared: ReturnType<typeof sharedUpstream>;
  readonly known: KnownDiscover;
  /** Starts the key's command now unless its child runs (upstreamConnector.ts): a shim's hello. */
  readonly prestart: () => void;
  readonly settle: () => Promise<void>;
  readonly loggers: Set<Logger>;
  /** Writes one raw line to a session's stderr, per session on the key: the sign-in line. */
  readonly stderr: Set<(line: string) => void>;
  readonly signIn: SharedSignIn | undefined;
  /** The key's traces and metrics (docs/shared.md#shared-telemetry). */
  readonly telemetry: KeyTelemetry;
  sessions: number;
  grace: NodeJS.Timeout | undefined;
}

/** The table of upstreams by key. */
export interface UpstreamTable {
  /** The upstream of the plan's key: the running one, or a new one. */
  readonly entryFor: (plan: SessionPlan) => Promise<Entry>;
  /** Takes the entry out of the table (a failed sign-in: the next session of the key tries again). */
  readonly drop: (entry: Entry) => void;
  /**
   * One session on the entry ended: after the last one, the upstream stops in `graceMs`; without a
   * grace at once, and the promise settles after that stop (docs/shared.md#shared-lifecycle).
   */
  readonly release: (entry: Entry, graceMs: number) => Promise<void>;
  /** The entries made so far (not those being made). */
  readonly list: () => Entry[];
  /** Stops every upstream, those being made too. */
  readonly closeAll: () => Promise<void>;
}

/** No back-pressure across sessions: the upstream is shared; each session has its unread limit. */
const NO_FLOW: FlowControl = { check: () => undefined, add: () => () => undefined, paused: false };

/** A logger of the key: upstream lines go to every session on that upstream. */
const fanOut = (loggers: Set<Logger>): Logger => ({
  enabled: (level) => [...loggers].some((logger) => logger.enabled(level)),
  log: (scope, level, text) => {
    for (const logger of loggers) logger.log(scope, level, text);
  },
});

async function makeEntry(plan: SessionPlan): Promise<Entry> {
  const stderr = new Set<(line: string) => void>();
  const toSessions = (line: string): void => stderr.forEach((write) => write(line));
  const signIn = plan.signIn === undefined ? undefined : await plan.signIn(toSessions);
  const loggers = new Set<Logger>();
  const logger = fanOut(loggers);
  const connector = createUpstreamConnector({
    upstream: plan.upstream,
    logger,
    flow: NO_FLOW,
    maxLineBytes: plan.maxLineBytes,
    maxResponseBytes: plan.maxResponseBytes,
    env: plan.env,
    auth: signIn?.ok === true ? signIn.auth : undefined,
  });
  const telemetry = await entryTelemetry(plan.env, plan.session.version, signIn);
  return {
    key: plan.key,
    summary: plan.summary,
    started: Date.now(),
    shared: sharedUpstream(connector.connect, logger),
    known: knownDiscover(),
    prestart: connector.prestart,
    settle: () => connector.settle(false),
    loggers,
    stderr,
    signIn,
    telemetry,
    sessions: 0,
    grace: undefined,
  };
}

export function createUpstreamTable(): UpstreamTable {
  const entries = new Map<string, Entry | Promise<Entry>>();

  const entryFor = async (plan: SessionPlan): Promise<Entry> => {
    const known = entries.get(plan.key);
    if (known !== undefined) return known;
    const making = makeEntry(plan);
    entries.set(plan.key, making);
    return making.then(
      (entry) => {
        if (entries.get(plan.key) === making) entries.set(plan.key, entry);
        return entry;
      },
      (error: unknown) => {
        if (entries.get(plan.key) === making) entries.delete(plan.key);
        throw error;
      },
    );
  };

  const drop = (entry: Entry): void => {
    if (entries.get(entry.key) === entry) entries.delete(entry.key);
  };

  const stopEntry = async (entry: Entry): Promise<void> => {
    drop(entry);
    entry.shared.close();
    await entry.settle();
    if (entry.signIn?.ok === true) entry.signIn.close();
    await entry.telemetry.flush();
  };

  return {
    entryFor,
    drop,
    // Without a grace the last session stops the upstream at once and its shim exits after that
    // stop, as the stdio bridge exits after its child's.
    release: async (entry, graceMs) => {
      entry.sessions -= 1;
      if (entry.sessions > 0) return;
      if (graceMs === 0) return stopEntry(entry);
      entry.grace = setTimeout(() => void stopEntry(entry), graceMs);
    },
    list: () => [...entries.values()].filter((entry): entry is Entry => !(entry instanceof Promise)),
    closeAll: async () => {
      const all = await Promise.all([...entries.values()]);
      await Promise.all(
        all.map((entry) => {
          if (entry.grace !== undefined) clearTimeout(entry.grace);
          return stopEntry(entry);
        }),
      );
    },
  };
}
