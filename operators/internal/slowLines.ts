/**
 * The slow-request lines of forwardRequest (rule 10 in ../forwardRequest.ts,
 * docs/requests.md#requests-slow-lines): one info line after `slowFirstMs`, then one every
 * `slowEveryMs` while the request runs, on the request's scheduler (the bridge's lane scheduler:
 * no timer per request). When round 1's limit is longer than the first wait, the first line also
 * arms the rest of that limit (Run.limitAfterSlow).
 */
import type { SchedulerAction } from 'rxjs';
import { roundLimitMs } from './roundLimit.js';
import type { Run } from './forwardState.js';
import { logGuarded } from './forwardState.js';
import { armLimit } from './timeLimit.js';

/** Arms the first slow-request line of a request that starts now. */
export function armSlowLines(run: Run): void {
  const { config, scheduler } = run.shared;
  const { slowFirstMs } = config;
  const limitMs = roundLimitMs(run.request.method, 1, config);
  if (limitMs > slowFirstMs) {
    run.limitAfterSlow = limitMs - slowFirstMs;
    run.slow = scheduler.schedule(firstSlowLine, slowFirstMs, run);
  } else {
    run.slow = scheduler.schedule(slowLine, slowFirstMs, run);
  }
}

/** One slow-request line while the work runs, then the next one. */
function slowLine(this: SchedulerAction<Run>, run?: Run): void {
  if (run === undefined || run.ended) return;
  logSlowLine(run);
  run.slow = run.shared.scheduler.schedule(slowLine, run.shared.config.slowEveryMs, run);
}

function logSlowLine(run: Run): void {
  const { slowFirstMs, slowEveryMs } = run.shared.config;
  const request = run.request;
  const seconds = Math.round((slowFirstMs + run.slowTicks * slowEveryMs) / 1000);
  run.slowTicks += 1;
  const what = run.waitingForClient
    ? `still waiting for the answers of the client to the input requests of ${request.method}`
    : `still waiting for the upstream server: ${request.method}`;
  logGuarded(run, 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
}

/**
 * The first slow-request line of a request whose round-1 limit is longer: then the rest of that
 * limit, while round 1 still runs (docs/requests.md#requests-deadlines: the limit counts from the
 * start of the request).
 */
function firstSlowLine(this: SchedulerAction<Run>, run?: Run): void {
  if (run === undefined || run.ended) return;
  const left = run.limitAfterSlow;
  run.limitAfterSlow = undefined;
  logSlowLine(run);
  if (run.ended) return;
  run.slow = run.shared.scheduler.schedule(slowLine, run.shared.config.slowEveryMs, run);
  if (left !== undefined && run.first !== undefined)
    run.limit = armLimit(run.shared.scheduler, left, run.first);
}
