/**
 * The marble-test scheduler of the project (docs/testing.md#testing-infrastructure). Shipped as
 * `mcp-bridge-sdk/testing`, so it takes the deep-equality assertion of the caller's test runner
 * instead of importing one.
 */
import { TestScheduler } from 'rxjs/testing';

/** Throws when `actual` and `expected` differ, e.g. `(a, e) => expect(a).toEqual(e)` in vitest. */
export type DeepEqualAssertion = (actual: unknown, expected: unknown) => void;

/**
 * A new TestScheduler for one test. Use one per test with `run()`.
 *
 * @example
 * const scheduler = createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));
 * scheduler.run(({ hot, cold, expectObservable }) => { ... });
 */
export function createProtocolScheduler(assertDeepEqual: DeepEqualAssertion): TestScheduler {
  return new TestScheduler(assertDeepEqual);
}
