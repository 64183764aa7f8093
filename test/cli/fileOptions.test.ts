/**
 * `--ca-file`, `--token-key-file`, `--client-key-file`, `--assertion-file` and `--id-token-file` take regular files only (SECURITY.md, requirement 4): a
 * FIFO (whose open waits for a writer) or a device given as either ends the built executable at
 * once with exit code 2 and a diagnostic that names the option, never the path. Each run has a
 * time limit of its own: a bridge that still runs then is killed and the test fails, it never
 * hangs. Needs the build (`npm run build`).
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE } from '../helpers/bridgeProcess.js';
import { bridgeEnv } from '../process/httpSupport.js';

const URL = 'https://127.0.0.1:9/mcp';
/** Far above a start that ends at the arguments (well below a second), far below the test's limit. */
const LIMIT_MS = 8_000;
const posix = process.platform !== 'win32';
let dir: string;
let fifo: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-SECRET-files-'));
  fifo = join(dir, 'SECRET-fifo');
  if (posix) execFileSync('mkfifo', [fifo]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Outcome {
  readonly code: number | null;
  /** True when the bridge still ran after LIMIT_MS and the test killed it. */
  readonly killed: boolean;
  readonly stdout: string;
  readonly stderr: string[];
}

/** Runs the bridge with stdin open (as a client keeps it) until it exits, or LIMIT_MS. */
function run(args: readonly string[]): Promise<Outcome> {
  const child = spawn(process.execPath, [BRIDGE, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: bridgeEnv({ XDG_STATE_HOME: dir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' }),
  });
  let stdout = '';
  const stderr: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    child.kill('SIGKILL');
  }, LIMIT_MS);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, killed, stdout, stderr: stderr.filter((line) => line !== '') });
    }),
  );
}

const refused = (outcome: Outcome, diagnostic: string): void => {
  expect({ killed: outcome.killed, code: outcome.code, stdout: outcome.stdout }).toEqual({
    killed: false,
    code: 2,
    stdout: '',
  });
  expect(outcome.stderr[0]).toBe(`mcp-bridge-vscode: vscode: error: ${diagnostic}`);
  expect(outcome.stderr.join('\n')).not.toContain('SECRET');
};

describe.runIf(posix).concurrent('a file option that names no regular file: exit code 2 at once', () => {
  it('a FIFO as --ca-file', async () => {
    refused(
      await run(['--ca-file', fifo, URL]),
      'cannot use the CA certificates of --ca-file: it names a pipe (FIFO), not a regular file',
    );
  });

  it('/dev/zero as --ca-file', async () => {
    refused(
      await run(['--ca-file', '/dev/zero', URL]),
      'cannot use the CA certificates of --ca-file: it names a device, not a regular file',
    );
  });

  it('a FIFO as --token-key-file', async () => {
    refused(
      await run(['--token-store', 'file', '--token-key-file', fifo, URL]),
      'the value of --token-key-file is not valid: it names a pipe (FIFO), not a regular file',
    );
  });

  it('a FIFO as --client-key-file', async () => {
    const grant = [
      '--grant',
      'client-credentials',
      '--client-id',
      'c',
      '--client-issuer',
      'https://127.0.0.1:9',
    ];
    refused(
      await run([...grant, '--client-key-file', fifo, URL]),
      'the value of --client-key-file is not valid: it names a pipe (FIFO), not a regular file',
    );
  });

  it('a FIFO and /dev/zero as --assertion-file', async () => {
    const grant = ['--grant', 'jwt-bearer', '--client-id', 'c', '--client-issuer', 'https://127.0.0.1:9'];
    refused(
      await run([...grant, '--assertion-file', fifo, URL]),
      'the value of --assertion-file is not valid: it names a pipe (FIFO), not a regular file',
    );
    refused(
      await run([...grant, '--assertion-file', '/dev/zero', URL]),
      'the value of --assertion-file is not valid: it names a device, not a regular file',
    );
  });

  it('a FIFO as --id-token-file', async () => {
    const grant = ['--grant', 'id-jag', '--client-id', 'c', '--client-issuer', 'https://127.0.0.1:9'];
    const idp = ['--idp-issuer', 'https://127.0.0.1:8', '--idp-client-id', 'i'];
    refused(
      await run([...grant, ...idp, '--id-token-file', fifo, URL]),
      'the value of --id-token-file is not valid: it names a pipe (FIFO), not a regular file',
    );
  });

  it('/dev/zero as --token-key-file, also for logout', async () => {
    const diagnostic = 'the value of --token-key-file is not valid: it names a device, not a regular file';
    refused(await run(['--token-key-file', '/dev/zero', URL]), diagnostic);
    refused(await run(['logout', '--token-key-file', '/dev/zero', URL]), diagnostic);
  });
});
