/**
 * What a process test needs of its platform ("Windows"), for `it.skipIf(...)` with the
 * reason written here once. The rules themselves are unit-tested on every platform
 * (test/edges/childProcess.plan.test.ts) and the portable process tests run everywhere.
 */

/**
 * Linux `/proc`: the children of a process (`childPids`, `upstreamPid`, `descendants`) and its
 * memory (`rssKiB`). macOS and Windows have no `/proc`, and these helpers read nothing there.
 */
export const NO_PROC = process.platform !== 'linux';

/**
 * POSIX signals and process groups: on Windows a "signal" from Node ends the process at once (no
 * handler runs, no exit code 0) and there are no groups to signal.
 */
export const NO_POSIX_SIGNALS = process.platform === 'win32';

/**
 * bash and openssl for test/fixtures/certs/make-test-ca.sh: not part of a Windows machine.
 */
export const NO_POSIX_TOOLS = process.platform === 'win32';
