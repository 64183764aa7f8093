import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['marbles/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Bounds, never pauses: a test waits for events (test/helpers/waitFor.ts), and on two cores
    // oversubscribed several times over a sign-in end to end or a property run of 150 sessions
    // takes longer than 30 s (docs/testing.md#testing-infrastructure).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Process and interop tests spawn real executables; two cores, so keep it modest.
    maxWorkers: 2,
  },
});
