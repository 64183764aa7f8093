import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * `npm run test:sea` (after `npm run build:sea`): the process tests of the stdio bridge, the URL
 * form and `serve` against the single executables of `dist/sea/` (test/helpers/seaSwap.ts), and
 * test/sea/. Not part of `npm test`: the build fetches a Node of 40 to 60 MB per target.
 */
// Not the projects of vitest.config.ts (the `--shared` matrix): this run has its own list.
const { projects: _projects, ...common } = base.test ?? {};

export default defineConfig({
  test: {
    ...common,
    include: [
      'test/sea/**/*.sea.ts',
      // The stdio bridge in front of a child fixture.
      'test/process/forward.test.ts',
      'test/process/lifecycle.test.ts',
      'test/process/input.test.ts',
      'test/process/cli.test.ts',
      // The URL form against a local HTTP fixture.
      'test/process/httpStreams.test.ts',
      'test/process/httpHeaders.test.ts',
      // `serve`.
      'test/process/serveSessions.test.ts',
      'test/process/serveSecurity.test.ts',
    ],
    env: { MCP_BRIDGE_SEA_DIR: fileURLToPath(new URL('dist/sea', import.meta.url)) },
  },
});
