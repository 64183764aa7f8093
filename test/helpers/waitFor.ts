/**
 * The one bounded wait of the tests: it waits for an event, never for a time. `condition` reads
 * state that events fill (the lines a process wrote, the requests a server got, the messages of a
 * transport, a file a child wrote); it is checked again every `everyMs` until it holds, and the
 * wait fails after `timeoutMs` with `what` in its message. A test that must show that something
 * did NOT happen waits for a sentinel that comes after it (docs/testing.md#testing-infrastructure),
 * not for a while.
 */

/**
 * The bound of every wait of the tests: far longer than any event takes, so that it only costs
 * time when a test fails. Beside four busy loops and other work on two cores (load average 20), a
 * Node process took more than 10 s to answer its first request.
 */
export const WAIT_BOUND_MS = 30_000;

export interface WaitOptions {
  /** What the wait is for, in the error of a timeout. */
  readonly what?: string;
  /** Default WAIT_BOUND_MS: a bound for a loaded machine, never a pause. */
  readonly timeoutMs?: number;
  /** How often the state is read again. Default 10 ms. */
  readonly everyMs?: number;
}

/** Resolves once `condition()` holds; rejects after `timeoutMs`. */
export async function waitFor(condition: () => boolean, options: WaitOptions = {}): Promise<void> {
  await waitForValue(() => (condition() ? true : undefined), options);
}

/** Resolves with the first value of `probe()` that is not `undefined`; rejects after `timeoutMs`. */
export async function waitForValue<T>(probe: () => T | undefined, options: WaitOptions = {}): Promise<T> {
  const { what = 'the condition', timeoutMs = WAIT_BOUND_MS, everyMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
