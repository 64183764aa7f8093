/**
 * The slow-request lines of a forwarded request (docs/requests.md#requests-slow-lines): one info line
 * after `slowFirstMs`, then one every `slowEveryMs` while the request runs, from the deadline
 * queue of the session (no timer per request). When round 1's time limit is longer
 * than the first wait, the first line also arms the rest of that limit.
 */
import { roundLimitMs } from './forwardRounds.js';
import { firstRoundTimeout } from './forwardFirstRound.js';
import type { Run } from './forwardRun.js';

/**
 * Arms the first slow-request line of a request that starts now; when round 1's limit is longer
 * than its wait, that line's entry also stands for the limit (Run.limitAfterSlow).
 */
export function armSlowLines(run: Run): void {
  const { session, limits } = run.ctx;
  const { slowFirstMs } = limits;
  const limitMs = roundLimitMs(run.request.method, 1, limits);
  if (limitMs > slowFirstMs) {
    run.limitAfterSlow = limitMs - slowFirstMs;
    run.slow = session.deadlines.add(slowFirstMs, firstSlowLine, run);
  } else {
    run.slow = session.deadlines.add(slowFirstMs, slowLine, run);
  }
}

/** One slow-request line while the work runs, then the next one (docs/requests.md#requests-slow-lines). */
function slowLine(run: Run): void {
  const { session, limits, logger } = run.ctx;
  const { slowFirstMs, slowEveryMs } = limits;
  const request = run.request;
  const seconds = Math.round((slowFirstMs + run.slowTicks * slowEveryMs) / 1000);
  run.slowTicks += 1;
  const what = run.waitingForClient
    ? `still waiting for the answers of the client to the input requests of ${request.method}`
    : `still waiting for the upstream server: ${request.method}`;
  logger.log('bridge', 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
  run.slow = session.deadlines.add(slowEveryMs, slowLine, run);
}

/**
 * The first slow-request line of a request whose round-1 limit is longer: then the rest of that
 * limit, while round 1 still runs (docs/requests.md#requests-deadlines: the limit counts from the start of the request).
 */
function firstSlowLine(run: Run): void {
  const left = run.limitAfterSlow;
  run.limitAfterSlow = undefined;
  slowLine(run);
  if (left !== undefined && !run.ended)
    run.deadline = run.ctx.session.deadlines.add(left, firstRoundTimeout, run);
}
