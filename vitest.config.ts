import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['marbles/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Process and interop tests spawn real executables; two cores, so keep it modest.
    maxWorkers: 2,
  },
});
