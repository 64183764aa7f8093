/**
 * How the built bridge stops, and what it writes on stderr (docs/lifecycle.md#lifecycle-end-of-input, docs/lifecycle.md#lifecycle-upstream-loss,
 * §3.1, §3.11, §3.12, §9.10): the end of stdin, SIGTERM, the loss of the upstream process, an
 * upstream that closes its stdout, and the log lines at debug level. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { NO_POSIX_SIGNALS, NO_PROC } from '../helpers/platform.js';
import type { TestContext } from 'vitest';
import {
  FIXTURE,
  bridgeErrorResponse,
  bridgeLines,
  childPids,
  exitWithin,
  clientFrameProblems,
  handshakeWithin,
  initializeRequest,
  isRunning,
  note,
  req,
  scripted,
  startBridge,
  tapped,
  untaggedLines,
  untilUpstream,
  upstreamFrames,
  upstreamPid,
  upstreamStderr,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, parseFrame, responseTo } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node twice: the bridge and its upstream). */
const STARTUP_MS = 30_000;

/** docs/lifecycle.md#lifecycle-end-of-input: bridge and child gone within 2 x grace + 2 s after the end of stdin. */
const EXIT_BOUND_MS = 6_000;
const MARKER = 'MARKER-5f1c';

/** A bridge that dies with the test, whatever happens. */
function bridgeFor(context: TestContext, options?: Parameters<typeof startBridge>[0]): RawPeer {
  const bridge = startBridge(options);
  context.onTestFinished(() => bridge.kill());
  return bridge;
}

/** Sends a request and resolves with its response. */
async function ask(bridge: RawPeer, frame: object): Promise<Record<string, unknown>> {
  bridge.send(frame);
  return bridge.nextFrame(responseTo((frame as { id: unknown }).id), STARTUP_MS);
}

// Two at a time: each test starts Node twice, on a machine of two cores.
vi.setConfig({ maxConcurrency: 2 });
afterAll(killAllPeers);

describe.concurrent('the end of stdin', () => {
  it('stops an idle bridge with code 0 within 6 s, and its child with it', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const bridge = bridgeFor(context);
    await handshakeWithin(bridge, STARTUP_MS);
    const child = await upstreamPid(bridge);
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0, signal: null });
    expect(isRunning(child)).toBe(false);
  });

  it('stops the bridge with code 0 during a slow call, cancelling it upstream, without a response to it', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    // A tap between the bridge and the fixture shows what the fixture got.
    const bridge = bridgeFor(context, { upstream: tapped() });
    await handshakeWithin(bridge, STARTUP_MS);
    const tap = await upstreamPid(bridge);
    await waitFor(() => childPids(tap).length > 0, { timeoutMs: 10_000, what: 'the start of the fixture' });
    const fixture = childPids(tap)[0]!;
    bridge.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 30_000 } }));
    const [call] = await untilUpstream(bridge, '>', (frame) => frame.method === 'tools/call');
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0, signal: null });
    expect(isRunning(tap)).toBe(false);
    expect(isRunning(fixture)).toBe(false);
    expect(bridge.lines.map((line) => parseFrame(line)!).filter(responseTo('slow'))).toEqual([]);
    // The call is cancelled upstream (the listen stream too) before the fixture's stdin ends.
    const cancels = upstreamFrames(bridge, '>').filter((frame) => frame.method === 'notifications/cancelled');
    expect(cancels).toContainEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: call!.id, reason: 'the client closed the connection' },
    });
  });

  it('stops the bridge with code 0 before initialize, with stdout empty and the child it started at once stopped', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const bridge = bridgeFor(context, { bridgeArgs: ['--log-level', 'debug'] });
    // A notification gets no answer on stdout; its debug line shows that the bridge reads.
    bridge.send(note('notifications/ready'));
    await waitFor(() => bridge.stderr.some((line) => line.includes('notifications/ready')), {
      timeoutMs: 20_000,
      what: 'the start of the bridge',
    });
    // The upstream command starts with the bridge, before any initialize (src/cli/prestart.ts).
    const [child] = childPids(bridge.child.pid!);
    expect(child).toBeDefined();
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0, signal: null });
    expect(bridge.lines).toEqual([]);
    expect(isRunning(child!)).toBe(false);
  });

  it('stops the bridge with code 0 while initialize waits, without a response to it', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const bridge = bridgeFor(context, { upstream: scripted('no-discover') });
    bridge.send(initializeRequest(1));
    const child = await upstreamPid(bridge);
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0, signal: null });
    expect(isRunning(child)).toBe(false);
    expect(bridge.lines).toEqual([]);
  });
});

/**
 * An upstream (run with `node -e`) that answers server/discover, ignores the end of its stdin and
 * SIGTERM, and starts a grandchild in its process group; it writes the pid of the grandchild.
 */
const STUBBORN_SOURCE = [
  "process.on('SIGTERM', () => process.stderr.write('stubborn: ignored SIGTERM\\n'));",
  "const { spawn } = require('node:child_process');",
  "const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });",
  "process.stderr.write('stubborn: grandchild ' + grandchild.pid + '\\n');",
  "require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {",
  '  const m = JSON.parse(line);',
  "  if (m.method !== 'server/discover') return;",
  "  const result = { resultType: 'complete', capabilities: { tools: {} } };",
  "  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');",
  '});',
  'setInterval(() => {}, 1000);',
].join('\n');

describe.concurrent('an upstream that does not stop', () => {
  it('is killed with its process group at the end of stdin, and the bridge exits with code 0 within 6 s', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const bridge = bridgeFor(context, { upstream: [process.execPath, '-e', STUBBORN_SOURCE] });
    await handshakeWithin(bridge, STARTUP_MS);
    const child = await upstreamPid(bridge);
    await waitFor(() => upstreamStderr(bridge).some((line) => line.startsWith('stubborn: grandchild ')), {
      timeoutMs: 10_000,
      what: 'the grandchild',
    });
    const grandchild = Number(
      upstreamStderr(bridge)
        .find((line) => line.startsWith('stubborn: grandchild '))!
        .split(' ')
        .pop(),
    );
    context.onTestFinished(() => {
      for (const pid of [child, grandchild]) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    });
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0, signal: null });
    expect(upstreamStderr(bridge)).toContain('stubborn: ignored SIGTERM');
    expect(isRunning(child)).toBe(false);
    expect(isRunning(grandchild)).toBe(false);
  });
});

describe.concurrent('a signal', () => {
  it('stops the bridge on SIGTERM within 6 s, and its child with it', async (context) => {
    context.skip(
      NO_PROC || NO_POSIX_SIGNALS,
      'this test reads /proc and sends POSIX signals (test/helpers/platform.ts)',
    );
    const bridge = bridgeFor(context);
    await handshakeWithin(bridge, STARTUP_MS);
    const child = await upstreamPid(bridge);
    bridge.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 30_000 } }));
    await ask(bridge, req('ping', 'ping'));
    bridge.child.kill('SIGTERM');
    const exit = await exitWithin(bridge, EXIT_BOUND_MS);
    expect(exit.signal).toBeNull();
    expect(exit.code).toBe(0);
    expect(isRunning(child)).toBe(false);
  });
});

describe.concurrent('the loss of the upstream process', () => {
  it('fails every call in flight with -32603 upstream_exited, and the bridge exits with code 1', async (context) => {
    const bridge = bridgeFor(context);
    await handshakeWithin(bridge, STARTUP_MS);
    bridge.send(req('slow', 'tools/call', { name: 'slow', arguments: { ms: 30_000 } }));
    bridge.send(req(0, 'tools/call', { name: 'crash', arguments: {} }));
    const failures = [
      await bridge.nextFrame(responseTo('slow'), STARTUP_MS),
      await bridge.nextFrame(responseTo(0), STARTUP_MS),
    ];
    expect(failures).toEqual([
      bridgeErrorResponse('slow', 'upstream_exited'),
      bridgeErrorResponse(0, 'upstream_exited'),
    ]);
    for (const frame of failures) expect(clientFrameProblems(frame)).toEqual([]);
    // stdin is still open: the loss alone ends the bridge.
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 1, signal: null });
    expect(bridgeLines(bridge.stderr)).toContainEqual(
      'mcp-bridge-vscode: bridge: error: the upstream server exited with code 3 (upstream_exited)',
    );
  });

  it('logs the signal that stopped the upstream, and the bridge exits with code 1', async (context) => {
    context.skip(
      NO_PROC || NO_POSIX_SIGNALS,
      'this test reads /proc and sends POSIX signals (test/helpers/platform.ts)',
    );
    const bridge = bridgeFor(context);
    await handshakeWithin(bridge, STARTUP_MS);
    process.kill(await upstreamPid(bridge), 'SIGKILL');
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 1, signal: null });
    // Exactly one error line for this exit with code 1, with the cause and the error code.
    expect(bridgeLines(bridge.stderr).filter((line) => line.includes(': error: '))).toEqual([
      'mcp-bridge-vscode: bridge: error: the upstream server stopped on signal SIGKILL (upstream_exited)',
    ]);
  });

  it('makes an idle bridge exit with code 1', async (context) => {
    const bridge = bridgeFor(context);
    await handshakeWithin(bridge, STARTUP_MS);
    const answer = await ask(bridge, req(1, 'tools/call', { name: 'crash', arguments: { after_ms: 100 } }));
    expect(answer.result).toEqual({ content: [{ type: 'text', text: 'the server stops in 100 ms' }] });
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 1, signal: null });
  });

  it('fails a call when the upstream exits in the middle of it, and the bridge exits with code 1', async (context) => {
    const bridge = bridgeFor(context, { upstream: scripted('exit-mid-request') });
    await handshakeWithin(bridge, STARTUP_MS);
    expect(await ask(bridge, req('mid', 'tools/call', { name: 'echo', arguments: { text: 'x' } }))).toEqual(
      bridgeErrorResponse('mid', 'upstream_exited'),
    );
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 1, signal: null });
  });

  it('fails initialize when the upstream closes its stdout and runs on, and the bridge stops that child', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const bridge = bridgeFor(context, { upstream: [process.execPath, FIXTURE, '--close-stdout'] });
    bridge.send(initializeRequest(1));
    const child = await upstreamPid(bridge);
    // It ignores its stdin: if the test fails, nothing else would stop it.
    context.onTestFinished(() => {
      if (isRunning(child)) process.kill(child, 'SIGKILL');
    });
    expect(await bridge.nextFrame(responseTo(1), STARTUP_MS)).toEqual(
      bridgeErrorResponse(1, 'closed', 'server/discover'),
    );
    // Stopped by the bridge, not by its own end (it would run for 120 s).
    await waitFor(() => !isRunning(child), { what: 'the stop of the child' });
    expect(bridge.child.exitCode).toBeNull();
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0 });
  });

  it('fails initialize when the upstream closed its stdout before initialize arrived, and the bridge stops that child', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    // The child starts with the bridge; its stdout ends before the bridge reads it (its 'end'
    // comes without a reader), which once left initialize without an answer.
    const bridge = bridgeFor(context, { upstream: [process.execPath, FIXTURE, '--close-stdout'] });
    const child = await upstreamPid(bridge, STARTUP_MS);
    context.onTestFinished(() => {
      if (isRunning(child)) process.kill(child, 'SIGKILL');
    });
    await waitFor(() => upstreamStderr(bridge).some((line) => line.includes('stdout closed')), {
      timeoutMs: STARTUP_MS,
      what: 'the child closing its stdout',
    });
    bridge.send(initializeRequest(1));
    expect(await bridge.nextFrame(responseTo(1), STARTUP_MS)).toEqual(
      bridgeErrorResponse(1, 'closed', 'server/discover'),
    );
    await waitFor(() => !isRunning(child), { what: 'the stop of the child' });
    bridge.closeStdin();
    expect(await exitWithin(bridge, EXIT_BOUND_MS)).toMatchObject({ code: 0 });
  });
});

describe.concurrent('the log lines', () => {
  it('at debug level: stdout has only JSON-RPC, every bridge line is tagged, one line per upstream exchange, no frame content', async (context) => {
    const bridge = bridgeFor(context, { bridgeArgs: ['--log-level', 'debug'] });
    await handshakeWithin(bridge, STARTUP_MS);
    const requests: [string | number, string, object][] = [
      ['list', 'tools/list', {}],
      [2, 'tools/call', { name: 'echo', arguments: { text: MARKER } }],
      [
        0,
        'tools/call',
        { name: 'meta_echo', arguments: {}, _meta: { 'vscode.marker': MARKER, baggage: MARKER } },
      ],
      [3, 'prompts/get', { name: 'greet', arguments: { name: MARKER } }],
      [4, 'resources/read', { uri: `file:///fixture/${MARKER}` }],
      [5, 'tools/call', { name: 'no_such_tool', arguments: { text: MARKER } }],
    ];
    for (const [id, method, params] of requests) await ask(bridge, req(id, method, params));
    // Lines the bridge cannot read, and requests it answers itself, with the marker.
    bridge.send(`{"jsonrpc":"2.0","id":6,"method":"${MARKER}"`);
    bridge.send(req(7, MARKER, { text: MARKER }));
    bridge.send(req(8, 'logging/setLevel', { level: MARKER }));
    await ask(bridge, req('last', 'ping'));
    bridge.closeStdin();
    expect((await exitWithin(bridge, EXIT_BOUND_MS)).code).toBe(0);

    for (const line of bridge.lines) {
      expect(parseFrame(line)).toMatchObject({ jsonrpc: '2.0' });
    }
    expect(untaggedLines(bridge.stderr)).toEqual([]);
    expect(bridge.stderr.filter((line) => line.includes(MARKER))).toEqual([]);
    expect(bridge.stderr.filter((line) => line.includes('{'))).toEqual([]);

    const exchanges = bridgeLines(bridge.stderr).filter((line) =>
      line.startsWith('mcp-bridge-vscode: bridge: debug: upstream request '),
    );
    // server/discover, the listen stream, and one per forwarded request, each exactly once.
    const pattern =
      /^mcp-bridge-vscode: bridge: debug: upstream request (\d+) \(([a-z/]+), round 1 of (no client request|client request (\S+))\): (\w+) after \d+ ms$/;
    for (const line of exchanges) expect(line).toMatch(pattern);
    const parsed = exchanges.map((line) => pattern.exec(line)!);
    expect(parsed.map((match) => [match[2], match[4]])).toEqual(
      expect.arrayContaining([
        ['server/discover', undefined],
        ['subscriptions/listen', undefined],
        ...requests.map(([id, method]) => [method, String(id)]),
      ]),
    );
    expect(parsed).toHaveLength(2 + requests.length);
    expect(new Set(parsed.map((match) => match[1])).size).toBe(parsed.length);
  });

  it('at the default level: no debug line, and no line of the bridge for a session without trouble', async (context) => {
    const bridge = bridgeFor(context);
    await handshakeWithin(bridge, STARTUP_MS);
    await ask(bridge, req(1, 'tools/call', { name: 'echo', arguments: { text: MARKER } }));
    bridge.closeStdin();
    expect((await exitWithin(bridge, EXIT_BOUND_MS)).code).toBe(0);
    expect(bridgeLines(bridge.stderr)).toEqual([]);
  });
});
