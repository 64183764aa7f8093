/**
 * The upstream command starts with the bridge, before the client sends anything, so that its start
 * overlaps the bridge's, and the first `initialize` adopts that child: one start in all, the same pid, and
 * its output so far kept. Invalid arguments start nothing; a child that nothing adopts (the end
 * of stdin or a signal before `initialize`) is stopped and never outlives the bridge; a spawn error and an exit
 * before `initialize` are answered by the first `initialize` as before, and a retry starts a new
 * child. Needs the build (`npm run build`).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import type { TestContext } from 'vitest';
import { NO_POSIX_SIGNALS, NO_PROC } from '../helpers/platform.js';
import {
  GENERIC_BRIDGE,
  childPids,
  exitWithin,
  initializeRequest,
  isRunning,
  pidsInFile,
  startBridge,
} from '../helpers/bridgeProcess.js';
import { processTable } from '../helpers/processTable.js';
import { killAllPeers, responseTo, spawnPeer } from '../helpers/rawPeer.js';
import type { Frame, PeerExit, RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node twice: the bridge and its upstream). */
const STARTUP_MS = 30_000;

/**
 * A tiny 2026-07-28 upstream (run with `node -e`): it appends its pid to the file of its first
 * argument at once, then behaves by its second argument:
 * - `serve`: answers `server/discover` (serverInfo `prestart-upstream`), exits at the end of stdin;
 * - `early`: first writes a discover response for id 1 (serverInfo `written-early`) before any
 *   request, and creates `<file>.written` once that line is in the pipe, then serves; the bridge's
 *   first request has id 1, so the answer it reads tells whether the line written before
 *   adoption was kept;
 * - `exit-first`: on its first start exits at once with code 3, on later starts serves;
 * - `stubborn`: reads nothing and ignores SIGTERM: only SIGKILL stops it.
 */
const UPSTREAM_SOURCE = [
  "const fs = require('node:fs');",
  "const { createInterface } = require('node:readline');",
  'const [file, mode] = process.argv.slice(1);',
  "const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';",
  "fs.appendFileSync(file, process.pid + '\\n');",
  "const discover = (id, name) => JSON.stringify({ jsonrpc: '2.0', id, result: { resultType: 'complete',",
  "  supportedVersions: ['2026-07-28'], capabilities: { tools: {} },",
  "  _meta: { 'io.modelcontextprotocol/serverInfo': { name, version: '0.0.0' } } } }) + '\\n';",
  "if (mode === 'stubborn') { process.on('SIGTERM', () => undefined); setInterval(() => undefined, 1000); }",
  "else if (mode === 'exit-first' && before === '') process.exit(3);",
  'else {',
  "  if (mode === 'early') process.stdout.write(discover(1, 'written-early'), () => fs.writeFileSync(file + '.written', ''));",
  "  createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {",
  '    const m = JSON.parse(line);',
  "    if (m.method === 'server/discover') process.stdout.write(discover(m.id, 'prestart-upstream'));",
  "  }).on('close', () => process.exit(0));",
  '}',
].join('\n');

let dir: string;
let files = 0;
/** A new pid file for one upstream. */
const pidFile = (): string => join(dir, `pids-${++files}`);
const upstream = (file: string, mode: string): string[] => [
  process.execPath,
  '-e',
  UPSTREAM_SOURCE,
  file,
  mode,
];
/** The pids written so far, in start order. */
const startsIn = pidsInFile;

/** A bridge that dies with the test, whatever happens. */
function bridgeFor(context: TestContext, options: Parameters<typeof startBridge>[0]): RawPeer {
  const bridge = startBridge(options);
  context.onTestFinished(() => bridge.kill());
  return bridge;
}

async function exitOf(bridge: RawPeer, boundMs = 15_000): Promise<PeerExit> {
  const { code, signal } = await exitWithin(bridge, boundMs);
  return { code, signal };
}

async function ask(peer: RawPeer, frame: { id: unknown }): Promise<Frame> {
  peer.send(frame);
  return peer.nextFrame(responseTo(frame.id), STARTUP_MS);
}

const serverName = (response: Frame): unknown =>
  ((response.result as Frame | undefined)?.serverInfo as Frame | undefined)?.name;

// Two at a time: each test starts Node twice, on a machine of two cores.
vi.setConfig({ maxConcurrency: 2 });
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bridge-prestart-'));
});
afterAll(async () => {
  await killAllPeers();
  rmSync(dir, { recursive: true, force: true });
});

describe.concurrent('the upstream started with the bridge', () => {
  it('runs before the client sends anything, and the first initialize adopts it: one start, the same pid', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const file = pidFile();
    const bridge = bridgeFor(context, { upstream: upstream(file, 'serve') });
    await waitFor(() => startsIn(file).length === 1, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the upstream',
    });
    const [pid] = startsIn(file);
    expect(childPids(bridge.child.pid!)).toEqual([pid]);
    expect(bridge.lines).toEqual([]);

    const response = await ask(bridge, initializeRequest(1) as { id: unknown });
    expect(serverName(response)).toBe('prestart-upstream');
    expect(startsIn(file)).toEqual([pid]);
    expect(childPids(bridge.child.pid!)).toEqual([pid]);

    bridge.closeStdin();
    expect(await exitOf(bridge)).toEqual({ code: 0, signal: null });
    expect(isRunning(pid!)).toBe(false);
  });

  it('keeps what the upstream wrote before initialize: the line waits and is read after adoption', async (context) => {
    const file = pidFile();
    const bridge = bridgeFor(context, { upstream: upstream(file, 'early') });
    await waitFor(() => existsSync(`${file}.written`), {
      timeoutMs: STARTUP_MS,
      what: 'the early line in the pipe',
    });
    // Sentinel: the bridge answers a ping after the early line was in the pipe, so a careless
    // bridge that drains the pipe before anything adopted the child has read it by then.
    expect(await ask(bridge, { jsonrpc: '2.0', id: 'sentinel', method: 'ping' } as { id: unknown })).toEqual({
      jsonrpc: '2.0',
      id: 'sentinel',
      result: {},
    });
    const response = await ask(bridge, initializeRequest(1) as { id: unknown });
    expect(serverName(response)).toBe('written-early');
    expect(startsIn(file)).toHaveLength(1);
  });

  it('is adopted the same way by the generic executable mcp-bridge', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const file = pidFile();
    const bridge = spawnPeer(process.execPath, [GENERIC_BRIDGE, '--', ...upstream(file, 'serve')]);
    context.onTestFinished(() => bridge.kill());
    await waitFor(() => startsIn(file).length === 1, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the upstream',
    });
    const [pid] = startsIn(file);
    expect(childPids(bridge.child.pid!)).toEqual([pid]);
    const response = await ask(bridge, initializeRequest(1) as { id: unknown });
    expect(serverName(response)).toBe('prestart-upstream');
    expect(startsIn(file)).toEqual([pid]);
  });
});

describe.concurrent('a started upstream that nothing adopts', () => {
  it('is not started when the arguments are not valid, and the bridge exits with 2', async (context) => {
    const file = pidFile();
    const bridge = bridgeFor(context, {
      bridgeArgs: ['--discover-timeout', 'soon'],
      upstream: upstream(file, 'stubborn'),
    });
    expect(await exitOf(bridge)).toEqual({ code: 2, signal: null });
    expect(bridge.stderr[0]).toMatch(
      /^mcp-bridge-vscode: vscode: error: the value of --discover-timeout is not valid/,
    );
    // A stubborn child that was started would still run (only SIGKILL stops it), pid file or not.
    if (!NO_PROC) expect(processTable.pidsWithArgument(file)).toEqual([]);
    expect(startsIn(file)).toEqual([]);
  });

  it('is stopped at the end of stdin before initialize, and the bridge exits with 0', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const file = pidFile();
    const bridge = bridgeFor(context, { upstream: upstream(file, 'stubborn') });
    await waitFor(() => startsIn(file).length === 1, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the upstream',
    });
    bridge.closeStdin();
    expect(await exitOf(bridge)).toEqual({ code: 0, signal: null });
    expect(bridge.lines).toEqual([]);
    expect(isRunning(startsIn(file)[0]!)).toBe(false);
  });

  it('is stopped after a SIGTERM that comes while the bridge still loads, and the bridge exits with 0', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    context.skip(NO_POSIX_SIGNALS, 'Windows has no signal that a process can handle');
    const file = pidFile();
    const bridge = bridgeFor(context, { upstream: upstream(file, 'stubborn') });
    // As soon as the child exists: the bridge is then between its spawn and the end of its loading.
    const started = Date.now();
    while (childPids(bridge.child.pid!).length === 0) {
      if (Date.now() - started > STARTUP_MS) throw new Error('the upstream did not start');
      await new Promise((resolve) => setImmediate(resolve));
    }
    const [child] = childPids(bridge.child.pid!);
    bridge.child.kill('SIGTERM');
    expect(await exitOf(bridge)).toEqual({ code: 0, signal: null });
    expect(isRunning(child!)).toBe(false);
  });
});

describe.concurrent('a started upstream that fails', () => {
  it('answers the first initialize with -32603 spawn_failed when the command does not exist, and each retry too', async (context) => {
    const bridge = bridgeFor(context, { upstream: ['/nonexistent/prestart-upstream', '--flag'] });
    const spawnFailed = (id: number): Frame => ({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32603,
        message:
          'The bridge cannot start the upstream server. Check the command in the server configuration. See the Output channel of the server.',
        data: { cause: 'spawn_failed', detail: 'ENOENT' },
      },
    });
    expect(await ask(bridge, initializeRequest(0) as { id: unknown })).toEqual(spawnFailed(0));
    expect(await ask(bridge, initializeRequest(1) as { id: unknown })).toEqual(spawnFailed(1));
    // One line per initialize, as when each initialize started the command itself.
    expect(
      bridge.stderr.filter(
        (line) => line === 'mcp-bridge-vscode: bridge: error: cannot start the upstream command: ENOENT',
      ),
    ).toHaveLength(2);
    expect(bridge.child.exitCode).toBeNull();
  });

  it('answers the first initialize with -32603 closed when the child exited before it, and a retry starts a new child', async (context) => {
    const file = pidFile();
    const bridge = bridgeFor(context, { upstream: upstream(file, 'exit-first') });
    await waitFor(() => startsIn(file).length === 1, {
      timeoutMs: STARTUP_MS,
      what: 'the start of the upstream',
    });
    const [first] = startsIn(file);
    await waitFor(() => !isRunning(first!), { timeoutMs: STARTUP_MS, what: 'the exit of the upstream' });
    // An upstream that exits before initialize does not end the bridge.
    expect(bridge.child.exitCode).toBeNull();
    expect(await ask(bridge, initializeRequest(1) as { id: unknown })).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32603,
        message: 'The upstream server process stopped. See the Output channel of the server.',
        data: { cause: 'closed', detail: 'server/discover' },
      },
    });
    const retry = await ask(bridge, initializeRequest(2) as { id: unknown });
    expect(serverName(retry)).toBe('prestart-upstream');
    const starts = startsIn(file);
    expect(starts).toHaveLength(2);
    expect(starts[1]).not.toBe(first);
  });
});
