/**
 * Traces and metrics on one Telemetry seam (docs/observability.md): the bridge calls one
 * Telemetry (src/ports/telemetry.ts), which hands each call to both. The trace context sent
 * upstream is the traces' (metrics have none).
 */
import type {
  EndHandle,
  RequestHandle,
  SignInStepHandle,
  SignInTelemetry,
  Telemetry,
} from '../ports/telemetry.js';

const both = (first: EndHandle, second: EndHandle): EndHandle => ({
  end(errorType) {
    first.end(errorType);
    second.end(errorType);
  },
});

/** One Telemetry for those given; undefined when none is. */
export function fanOutTelemetry(...all: readonly (Telemetry | undefined)[]): Telemetry | undefined {
  const [first, second, ...rest] = all.filter((telemetry) => telemetry !== undefined);
  if (first === undefined) return undefined;
  if (second === undefined) return first;
  const tail = rest.length === 0 ? second : fanOutTelemetry(second, ...rest)!;
  return {
    requestStarted(info): RequestHandle {
      const a = first.requestStarted(info);
      const b = tail.requestStarted(info);
      return {
        ...both(a, b),
        roundStarted(round) {
          const ra = a.roundStarted(round);
          const rb = b.roundStarted(round);
          return {
            context: ra.context ?? rb.context,
            end(outcome) {
              ra.end(outcome);
              rb.end(outcome);
            },
          };
        },
        inputRequested: (kind) => both(a.inputRequested(kind), b.inputRequested(kind)),
      };
    },
    limitRefused(limit) {
      first.limitRefused?.(limit);
      tail.limitRefused?.(limit);
    },
  };
}

const bothSteps = (first: SignInStepHandle, second: SignInStepHandle): SignInStepHandle => ({
  end(outcome, errorType) {
    first.end(outcome, errorType);
    second.end(outcome, errorType);
  },
});

/** One SignInTelemetry for those given (the spans and the counters); undefined when none is. */
export function fanOutSignIn(...all: readonly (SignInTelemetry | undefined)[]): SignInTelemetry | undefined {
  const [first, second, ...rest] = all.filter((telemetry) => telemetry !== undefined);
  if (first === undefined) return undefined;
  if (second === undefined) return first;
  const tail = rest.length === 0 ? second : fanOutSignIn(second, ...rest)!;
  return {
    signInStarted: (info) => bothSteps(first.signInStarted(info), tail.signInStarted(info)),
    refreshStarted: (info) => bothSteps(first.refreshStarted(info), tail.refreshStarted(info)),
    lockWaitStarted: (parent) => both(first.lockWaitStarted(parent), tail.lockWaitStarted(parent)),
  };
}
