/**
 * The hand-over of a forwarded request to driveInputRounds (rules 7, 9 and 11 in
 * ../forwardRequest.ts), once a result of `tools/call`, `prompts/get` or `resources/read` says
 * `input_required`: that first response opens the driver's round 1, and each later round is an
 * upstream exchange with its own `withDeadline` limit (docs/requests.md#requests-deadlines).
 */
import { Subject, of } from 'rxjs';
import type { Observable } from 'rxjs';
import { forwardParams } from '../../src/codec/meta.js';
import { clientProgress } from '../../src/codec/progress.js';
import type { RetryExtras, RoundOutput } from '../../src/codec/input/index.js';
import type { ExchangeEvent } from '../../src/ports/upstream.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import { driveInputRounds } from '../driveInputRounds.js';
import type { ForwardAbort } from '../forwardRequest.js';
import { withDeadline } from '../withDeadline.js';
import { TIMEOUT_REASON } from '../../src/protocol/cancelReasons.js';
import { roundLimitMs, timeoutError } from './roundLimit.js';
import type { Run } from './forwardState.js';
import { emitGuarded, finish, logGuarded } from './forwardState.js';

/** The detail of the failure of an input round without checks (rule 11). */
export const NO_INPUT_CHECKS =
  'the bridge has no input checks (BridgeDeps.checks), thus it cannot send input requests to the client';

/** Hands the request over to the round driver with its first response. */
export function handOver(run: Run, first: ExchangeEvent): void {
  const { shared, request } = run;
  const { config } = shared;
  const { rounds } = shared.deps;
  const method = request.method;
  const prefix = `request ${String(request.id)} (${method}): `;
  const checks = rounds.checks;
  run.driverStop$ = new Subject<ForwardAbort>();
  if (checks === undefined) {
    // The output fails (the caller answers it, docs/input-rounds.md#input-rounds); nothing goes
    // to the client before.
    logGuarded(run, 'err', prefix + NO_INPUT_CHECKS);
    run.subscriber.error(new BridgeError('internal', { detail: NO_INPUT_CHECKS }));
    return;
  }
  const rounds$ = driveInputRounds(
    {
      method,
      maxRounds: config.maxRounds,
      maxInputRequests: config.maxInputRequests,
      inputTimeoutMs: config.inputTimeoutMs,
      scheduler: shared.scheduler,
    },
    {
      // Round 1 already happened: its response opens the driver's first round.
      exchange: (round, extras) => (round === 1 ? of(first) : roundExchange(run, round, extras)),
      answers$: rounds.answers$,
      nextBridgeId: () => {
        run.waitingForClient = true;
        return rounds.nextBridgeId();
      },
      nextElicitationId: () => rounds.nextElicitationId(),
      clientCapabilities: rounds.clientCapabilities,
      ...(rounds.clientRevision === undefined ? {} : { clientRevision: rounds.clientRevision }),
      checks,
      abort$: run.driverStop$,
      log: (level, text) => logGuarded(run, level, prefix + text),
    },
  );
  run.current = rounds$.subscribe({
    next: (output) => onRoundOutput(run, output),
    error: (error: unknown) => run.subscriber.error(error),
    complete: () => finish(run),
  });
}

/** Rule 2: progress of the later rounds keeps increasing from where round 1 left it. */
function onRoundOutput(run: Run, output: RoundOutput): void {
  if (output.type !== 'progress') return emitGuarded(run, output);
  const progress = clientProgress(run, output.frame);
  if (progress !== undefined) emitGuarded(run, { type: 'progress', frame: progress });
}

/**
 * Upstream round `round` (2 and later) with the driver's extras, made as the driver subscribes
 * it. Rule 9: its own limit from its start; at the limit the reason is set before the exchange
 * is cut (withDeadline rule 6), so the cancellation upstream carries it.
 */
function roundExchange(run: Run, round: number, extras: RetryExtras): Observable<ExchangeEvent> {
  const { shared, request } = run;
  const method = request.method;
  run.waitingForClient = false;
  const limitMs = roundLimitMs(method, round, shared.config);
  const params = { ...forwardParams(request.params), ...extras, _meta: shared.deps.meta(request) };
  return shared.deps.upstream
    .request(method, params, {
      cancelReason: () => run.cancelReason,
      trace: { round, clientId: request.id },
    })
    .pipe(
      withDeadline({
        limitMs,
        error: () => {
          run.cancelReason = TIMEOUT_REASON;
          return timeoutError(method, limitMs);
        },
        scheduler: shared.scheduler,
      }),
    );
}
