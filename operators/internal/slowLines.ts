/**
 * The slow-request lines of forwardRequest (rule 10 in ../forwardRequest.ts,
 * docs/requests.md#requests-slow-lines): one info line after `slowFirstMs`, then one every
 * `slowEveryMs` while the request runs, on the request's scheduler (the bridge's lane scheduler:
 * no timer per request), saying whether the request waits for the upstream or for the client.
 */
import type { SchedulerAction } from 'rxjs';
import { waitingForClient } from './driveRounds.js';
import type { Run } from './forwardState.js';
import { logGuarded } from './forwardState.js';

/** Arms the first slow-request line of a request that starts now. */
export function armSlowLines(run: Run): void {
  run.slow = run.shared.scheduler.schedule(slowLine, run.shared.config.slowFirstMs, run);
}

/** One slow-request line while the request runs, then the next one. */
function slowLine(this: SchedulerAction<Run>, run?: Run): void {
  if (run === undefined || run.ended) return;
  const { scheduler, config } = run.shared;
  const { slowFirstMs, slowEveryMs } = config;
  const request = run.request;
  const seconds = Math.round((slowFirstMs + run.slowTicks * slowEveryMs) / 1000);
  run.slowTicks += 1;
  const what =
    run.rounds !== undefined && waitingForClient(run.rounds)
      ? `still waiting for the answers of the client to the input requests of ${request.method}`
      : `still waiting for the upstream server: ${request.method}`;
  logGuarded(run, 'info', `${what} (request ${String(request.id)}, ${seconds} s)`);
  if (!run.ended) run.slow = scheduler.schedule(slowLine, slowEveryMs, run);
}
