import { defineConfig } from 'vitest/config';

/**
 * The process and interop tests of the stdio bridge, run a second time as shims of the shared
 * bridge (docs/testing.md#testing-shared-matrix, test/helpers/sharedMatrix.ts). Not here: the
 * tests of `serve`, `add`, `doctor` and of the shared bridge itself (no stdio form, or shared
 * already).
 */
const SHARED_MATRIX = [
  'test/process/{cancelledSpawn,cli,clientMeta,clientRevision,clientSignals,errors}.test.ts',
  'test/process/{forward,frames,input,largeResult,lifecycle,limits,notify,prestart}.test.ts',
  'test/process/{shutdown,tracingOff,tracingOtlp,tracingSignIn,versionNegotiation}.test.ts',
  'test/process/http{Args,BackPressure,Cancel,Failures,Headers,Icons,Listen}.test.ts',
  'test/process/http{Secrets,Streams,Tls,ToolHeaders}.test.ts',
  'test/interop/{clientLegacyMode,httpSdkClient,legacyClient}.test.ts',
];

const common = {
  // Bounds, never pauses: a test waits for events (test/helpers/waitFor.ts), and on two cores
  // oversubscribed several times over a sign-in end to end or a property run of 150 sessions
  // takes longer than 30 s (docs/testing.md#testing-infrastructure).
  testTimeout: 120_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    ...common,
    // Process and interop tests spawn real executables; two cores, so keep it modest.
    maxWorkers: 2,
    projects: [
      {
        test: {
          ...common,
          name: 'default',
          include: ['marbles/**/*.test.ts', 'test/**/*.test.ts', 'examples/**/*.test.ts'],
        },
      },
      {
        test: {
          ...common,
          name: 'shared',
          include: SHARED_MATRIX,
          env: { MCP_BRIDGE_TEST_SHARED: '1' },
          setupFiles: ['test/helpers/sharedMatrixSetup.ts'],
        },
      },
    ],
  },
});
