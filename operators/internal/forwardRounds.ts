/**
 * What the round driver (driveRounds.ts, the driver of driveInputRounds) gets from a forwarded
 * request (rules in ../forwardRequest.ts): the settings of its rounds, the exchange of each round
 * with that round's own limit (rules 3, 4 and 9, docs/requests.md#requests-deadlines), its log
 * lines with the request named, and the sink that makes the request's outputs of the driver's
 * (rule 2: progress through clientProgress).
 */
import type { Observable } from 'rxjs';
import type {
  InputSchemaChecks,
  RetryExtras,
  RoundOutput,
  RoundsSettings,
} from '../../src/codec/input/index.js';
import { roundParams } from '../../src/codec/meta.js';
import { clientProgress } from '../../src/codec/progress.js';
import { NEWEST_CLIENT_REVISION } from '../../src/codec/revisions.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import { TIMEOUT_REASON } from '../../src/protocol/cancelReasons.js';
import type { RoundDeps, RoundsSink } from './roundsContext.js';
import { roundLimitMs, timeoutError } from './roundLimit.js';
import type { Run } from './forwardState.js';
import { emitGuarded, finish, logGuarded } from './forwardState.js';

/** The detail of the failure of an input request without checks (rule 11). */
export const NO_INPUT_CHECKS =
  'the bridge has no input checks (BridgeDeps.checks), thus it cannot send input requests to the client';

/** The settings of the request's rounds. */
export function roundsSettings(run: Run): RoundsSettings {
  const { config } = run.shared;
  return {
    method: run.request.method,
    maxRounds: config.maxRounds,
    maxInputRequests: config.maxInputRequests,
    inputTimeoutMs: config.inputTimeoutMs,
  };
}

/** The request's side of its rounds. */
export function roundDeps(run: Run): RoundDeps {
  const { rounds } = run.shared.deps;
  return {
    // The connection's own object, not a copy per request.
    connection: hasChecks(rounds) ? rounds : withoutChecks(run, rounds),
    exchange: (round, extras) => roundExchange(run, round, extras),
    log: (level, text) => logGuarded(run, level, `${prefix(run)}${text}`),
    // Rules 3, 4 and 9: each round's own limit from its start; at the limit the reason is set
    // first, so that the cut sends it upstream.
    limitMs: (round) => roundLimitMs(run.request.method, round, run.shared.config),
    limitFailure: (round) => {
      run.cancelReason = TIMEOUT_REASON;
      const method = run.request.method;
      return timeoutError(method, roundLimitMs(method, round, run.shared.config));
    },
  };
}

const prefix = (run: Run): string => `request ${String(run.request.id)} (${run.request.method}): `;

/** Upstream round `round` with the retry extras of the round before (none for round 1). */
function roundExchange(run: Run, round: number, extras: RetryExtras): Observable<ExchangeEvent> {
  const { shared, request } = run;
  const params = roundParams(request.params, extras, shared.deps.meta(request));
  return shared.deps.upstream.request(request.method, params, {
    // An arrow: ExchangeOptions promises a plain function, which an upstream may call unbound.
    cancelReason: () => run.cancelReason,
    trace: { round, clientId: request.id },
  });
}

/** Where the driver's outputs go: the request's outputs for the client. */
export function roundsSink(run: Run): RoundsSink {
  return {
    next: (output) => onRoundOutput(run, output),
    error: (error: unknown) => run.subscriber.error(error),
    complete: () => finish(run),
  };
}

/** Rule 2: progress reaches the client with its token, while it increases across rounds. */
function onRoundOutput(run: Run, output: RoundOutput): void {
  if (output.type !== 'progress') return emitGuarded(run, output);
  const progress = clientProgress(run, output.frame);
  if (progress !== undefined) emitGuarded(run, { type: 'progress', frame: progress });
}

type ForwardRoundsConnection = Run['shared']['deps']['rounds'];

function hasChecks(rounds: ForwardRoundsConnection): rounds is RoundDeps['connection'] {
  return rounds.checks !== undefined;
}

/**
 * The connection's side without input checks (rule 11): the first check an input request needs
 * logs the line and fails the request with `internal`, before anything goes to the client.
 * Made only for a connection without checks.
 */
function withoutChecks(run: Run, rounds: ForwardRoundsConnection): RoundDeps['connection'] {
  const missing = (): never => {
    logGuarded(run, 'err', prefix(run) + NO_INPUT_CHECKS);
    // The detail of an internal failure stays in the log (the line above): the client's error
    // points there (docs/errors.md).
    throw new BridgeError('internal');
  };
  const checks: InputSchemaChecks = { matchesSpec: missing, formValidator: missing };
  return {
    answers$: rounds.answers$,
    get clientCapabilities() {
      return rounds.clientCapabilities;
    },
    get clientRevision() {
      return rounds.clientRevision ?? NEWEST_CLIENT_REVISION;
    },
    nextBridgeId: () => rounds.nextBridgeId(),
    nextElicitationId: () => rounds.nextElicitationId(),
    checks,
  };
}
