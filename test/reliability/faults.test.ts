/**
 * Fault injection (docs/testing.md#testing-properties) through the real executable. Each test breaks
 * one thing
 * (the scripted upstream misbehaves, or the client does) and checks the documented outcome: the
 * error or exit code within the documented time (docs/lifecycle.md#lifecycle-end-of-input: exit within 6 s
 * after the end of stdin; §2.14: an upstream exit gives exit code 1), no upstream process left
 * behind, no crash or unhandled rejection on stderr, and no frame content on stderr (secret scan).
 * Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { NO_POSIX_SIGNALS, NO_PROC } from '../helpers/platform.js';
import type { TestContext } from 'vitest';
import {
  BRIDGE,
  FIXTURE,
  handshake,
  handshakeWithToolsList,
  initializeRequest,
  req,
  scripted,
  startBridge,
} from '../helpers/bridgeProcess.js';
import { exchange, killAllPeers, notification, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import {
  crashLines,
  descendants,
  exitWithin,
  isAlive,
  rssKiB,
  scriptedPids,
  sleep,
  waitFor,
} from './support.js';

/** §2.13: the bridge and its child are gone within 2 x grace + 2 s after the end of stdin. */
const EXIT_BOUND_MS = 6_000;
/** The fixture's stderr line once a call of its `slow` tool runs. */
const SLOW_STARTED = 'bridge-fixture-server: slow: started';
/** Frame contents that must never reach stderr. */
const MARKER = 'fault-marker-3b9e';
const faults: string[] = [];

afterAll(async () => {
  await killAllPeers();
  console.log(`fault injection: ${faults.length} faults injected:\n  ${faults.join('\n  ')}`);
});

/** Starts the bridge in front of `upstream`; it dies with the test whatever happens. */
function start(context: TestContext, upstream: string[], bridgeArgs: string[] = []): RawPeer {
  faults.push(context.task.name);
  const peer = startBridge({ upstream, bridgeArgs });
  context.onTestFinished(() => {
    for (const pid of [...descendants(peer.child.pid!), ...scriptedPids(peer.stderr)]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    peer.kill();
  });
  return peer;
}

/** The processes below the bridge now (its upstream and what that started). */
const upstreams = (peer: RawPeer): number[] => [
  ...new Set([...descendants(peer.child.pid!), ...scriptedPids(peer.stderr)]),
];

/**
 * The common end of every fault: the exit code within the bound, no process of `pids` left, no
 * crash line on stderr, no frame content on stderr.
 */
async function expectStop(
  peer: RawPeer,
  pids: readonly number[],
  code: number,
  boundMs = EXIT_BOUND_MS,
): Promise<number> {
  const exit = await exitWithin(peer, boundMs);
  expect(exit.code).toBe(code);
  const all = [...new Set([...pids, ...scriptedPids(peer.stderr)])];
  await waitFor(() => all.every((pid) => !isAlive(pid)), {
    timeoutMs: 1_500,
    what: `no upstream process left of ${all.join(', ')}`,
  });
  expect(crashLines(peer.stderr)).toEqual([]);
  expectNoSecrets(peer, [MARKER], { streams: ['stderr'] });
  return exit.ms;
}

const errorOf = (frame: Frame): { code?: number; data?: { cause?: string; detail?: string } } =>
  frame['error'] ?? {};
const echo = (id: number | string): Frame & { id: number | string } =>
  req(id, 'tools/call', { name: 'echo', arguments: { text: MARKER } }) as Frame & { id: number | string };

describe.concurrent('fault injection: the upstream', () => {
  it('exits when server/discover arrives: initialize fails with closed and can be retried, then exit 0', async (context) => {
    const peer = start(context, scripted('exit-on-discover'));
    peer.send(initializeRequest(1));
    const first = await peer.nextFrame(responseTo(1));
    expect(errorOf(first)).toMatchObject({
      code: -32603,
      data: { cause: 'closed', detail: 'server/discover' },
    });
    peer.send(initializeRequest(2));
    expect(errorOf(await peer.nextFrame(responseTo(2))).data?.cause).toBe('closed');
    expect((await exchange(peer, echo(3)))['error']).toMatchObject({ data: { cause: 'not_initialized' } });
    peer.closeStdin();
    await expectStop(peer, [], 0);
    expect(scriptedPids(peer.stderr)).toHaveLength(2);
  });

  it('exits after server/discover while nothing is in flight: the bridge exits with code 1', async (context) => {
    const peer = start(context, scripted('exit-after-discover'));
    await handshake(peer);
    // stdin stays open: the upstream loss alone ends the bridge (§2.14).
    await expectStop(peer, [], 1);
  });

  it('exits in the middle of a call: -32603 upstream_exited, then exit code 1', async (context) => {
    const peer = start(context, scripted('exit-mid-request'));
    await handshake(peer);
    const pids = upstreams(peer);
    const response = await exchange(peer, echo(2));
    expect(errorOf(response)).toMatchObject({ code: -32603, data: { cause: 'upstream_exited' } });
    await expectStop(peer, pids, 1);
  });

  it('exits during a round while the bridge waits for the client: the bridge request is cancelled before the error', async (context) => {
    const peer = start(context, scripted('exit-during-round'));
    await handshake(peer);
    const pids = upstreams(peer);
    peer.send(echo(2));
    const ask = await peer.nextFrame((frame) => frame['method'] === 'elicitation/create');
    // The client does not answer; 300 ms later the upstream exits.
    const cancel = await peer.nextFrame(notification('notifications/cancelled'));
    expect(cancel['params']).toEqual({ requestId: ask['id'], reason: 'the upstream server stopped' });
    const response = await peer.nextFrame(responseTo(2));
    expect(errorOf(response).data?.cause).toBe('upstream_exited');
    expect(peer.lines.findIndex((line) => line.includes('notifications/cancelled'))).toBeLessThan(
      peer.lines.findIndex((line) => line.includes('upstream_exited')),
    );
    await expectStop(peer, pids, 1);
  });

  it('exits during a listen stream: the bridge exits with code 1, and the client gets no cancellation', async (context) => {
    const peer = start(context, scripted('exit-during-listen'));
    await handshakeWithToolsList(peer);
    // The catch-up of the tools listed before: the listen stream is acknowledged.
    await peer.nextFrame(notification('notifications/tools/list_changed'));
    const pids = upstreams(peer);
    await expectStop(peer, pids, 1);
    expect(peer.lines.some((line) => line.includes('notifications/cancelled'))).toBe(false);
  });

  it('never answers server/discover: initialize fails after --discover-timeout 1, the child stops, the bridge runs on', async (context) => {
    const peer = start(context, scripted('no-discover'), ['--discover-timeout', '1']);
    peer.send(initializeRequest(1));
    // The time limit runs from the discover request, sent once the child runs.
    await waitFor(() => scriptedPids(peer.stderr).length > 0, { timeoutMs: 10_000, what: 'the upstream' });
    const started = Date.now();
    const pidsWhileWaiting = upstreams(peer);
    const response = await peer.nextFrame(responseTo(1));
    const took = Date.now() - started;
    expect(errorOf(response)).toMatchObject({
      code: -32603,
      data: { cause: 'discover_failed', detail: 'no response in 1 s' },
    });
    // The detail names the limit; the answer comes soon after it (the start was seen a bit late).
    expect(took).toBeLessThan(4_000);
    // The failed attempt stops its child while the bridge keeps running.
    await waitFor(() => pidsWhileWaiting.every((pid) => !isAlive(pid)), {
      timeoutMs: 4_000,
      what: 'the child of the failed attempt stops',
    });
    expect((await exchange(peer, req(2, 'ping') as Frame & { id: number }))['result']).toEqual({});
    peer.closeStdin();
    await expectStop(peer, pidsWhileWaiting, 0);
  });

  it('never answers a call and ignores the end of its stdin: the bridge exits with code 0 in 6 s and the child is stopped', async (context) => {
    const peer = start(context, scripted('hang'));
    await handshake(peer);
    const pids = upstreams(peer);
    peer.send(echo(2));
    // The bridge reads the call before the ping: the call is in flight once the ping is answered.
    expect((await exchange(peer, req('in-flight', 'ping') as Frame & { id: string }))['result']).toEqual({});
    peer.closeStdin();
    const ms = await expectStop(peer, pids, 0);
    // The call in flight at the end of input gets no response (§2.13).
    expect(peer.lines.some((line) => line.includes('"id":2'))).toBe(false);
    console.log(`hang: the bridge exited ${ms} ms after the end of stdin`);
  });

  it('writes garbage before each answer: every call is still answered, then exit 0', async (context) => {
    const peer = start(context, scripted('garbage'));
    await handshake(peer);
    const pids = upstreams(peer);
    for (let id = 2; id < 7; id++) expect(await exchange(peer, echo(id))).toHaveProperty('result');
    expect(peer.stderr.some((line) => /mcp-bridge-vscode: bridge: warning: .*not valid/.test(line))).toBe(
      true,
    );
    peer.closeStdin();
    await expectStop(peer, pids, 0);
  });

  it('closes its stdout and keeps running: initialize fails with -32603, and the bridge stops that child', async (context) => {
    const peer = start(context, scripted('close-stdout'), ['--discover-timeout', '1']);
    peer.send(initializeRequest(1));
    await waitFor(() => scriptedPids(peer.stderr).length > 0, { timeoutMs: 10_000, what: 'the upstream' });
    const started = Date.now();
    const pids = upstreams(peer);
    const response = await peer.nextFrame(responseTo(1));
    expect(errorOf(response).code).toBe(-32603);
    // §3.1: within discover-timeout + 2 x grace.
    expect(Date.now() - started).toBeLessThan(1_000 + 2 * 2_000 + 1_000);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {
      what: 'the child that closed its stdout is stopped',
    });
    peer.closeStdin();
    await expectStop(peer, pids, 0);
  });
});

describe.concurrent('fault injection: the client', () => {
  it('closes stdin before initialize: exit 0, stdout empty, the child started at once stopped', async (context) => {
    const peer = start(context, [process.execPath, FIXTURE]);
    // The upstream command starts with the bridge, before any initialize (src/cli/prestart.ts).
    await waitFor(() => descendants(peer.child.pid!).length > 0, { timeoutMs: 10_000, what: 'the upstream' });
    const pids = descendants(peer.child.pid!);
    peer.closeStdin();
    await expectStop(peer, pids, 0);
    expect(peer.lines).toEqual([]);
  });

  it('closes stdin during initialize: no response to it, exit 0 within 6 s, the child stopped', async (context) => {
    const peer = start(context, scripted('no-discover'));
    peer.send(initializeRequest(1));
    await waitFor(() => scriptedPids(peer.stderr).length > 0, { timeoutMs: 10_000, what: 'the upstream' });
    const pids = upstreams(peer);
    peer.closeStdin();
    await expectStop(peer, pids, 0);
    expect(peer.lines).toEqual([]);
  });

  it('closes stdin during a call: no response to it, the fixture sees the cancellation, exit 0 within 6 s', async (context) => {
    const peer = start(context, [process.execPath, FIXTURE]);
    await handshake(peer);
    const pids = upstreams(peer);
    peer.send(req(2, 'tools/call', { name: 'slow', arguments: { ms: 20_000, note: MARKER } }));
    await waitFor(() => peer.stderr.includes(SLOW_STARTED), {
      timeoutMs: 10_000,
      what: 'the slow call at the fixture',
    });
    peer.closeStdin();
    await expectStop(peer, pids, 0);
    expect(peer.lines.some((line) => line.includes('"id":2,'))).toBe(false);
    // The exit of the bridge can come before the last lines of its stderr pipe are read.
    await waitFor(
      () => peer.stderr.some((line) => line.startsWith('bridge-fixture-server: slow: canceled')),
      {
        what: "the fixture's line of the cancelled call",
      },
    );
  });

  it('closes stdin while the bridge waits for its answer: the bridge request is cancelled, exit 0 within 6 s', async (context) => {
    const peer = start(context, [process.execPath, FIXTURE]);
    await handshake(peer);
    const pids = upstreams(peer);
    peer.send(req(2, 'tools/call', { name: 'ask_form', arguments: {} }));
    const ask = await peer.nextFrame((frame) => frame['method'] === 'elicitation/create');
    peer.closeStdin();
    const ms = await expectStop(peer, pids, 0);
    const cancel = await peer.nextFrame(notification('notifications/cancelled'), 100);
    expect(cancel['params']).toEqual({ requestId: ask['id'], reason: 'the client closed the connection' });
    console.log(`round wait: the bridge exited ${ms} ms after the end of stdin`);
  });

  it('closes stdin with a listen stream open: exit 0 well within 6 s', async (context) => {
    const peer = start(context, [process.execPath, FIXTURE]);
    await handshakeWithToolsList(peer);
    await peer.nextFrame(notification('notifications/tools/list_changed'));
    const pids = upstreams(peer);
    peer.closeStdin();
    const ms = await expectStop(peer, pids, 0, 3_000);
    console.log(`listen stream: the bridge exited ${ms} ms after the end of stdin`);
  });

  it('sends a burst over the in-flight limit: the surplus is refused at once, ping still answers, every call ends', async (context) => {
    const peer = start(context, [process.execPath, FIXTURE]);
    await handshake(peer);
    const pids = upstreams(peer);
    const burst = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify(req(100 + i, 'tools/call', { name: 'slow', arguments: { ms: 1_500 } })),
    );
    const from = peer.lines.length;
    peer.send(burst.join('\n'));
    peer.send(req('p', 'ping'));
    expect((await peer.nextFrame(responseTo('p')))['result']).toEqual({});
    const answers = await Promise.all(burst.map((_, i) => peer.nextFrame(responseTo(100 + i), 20_000)));
    const refused = answers.filter((frame) => errorOf(frame).data?.cause === 'too_many_requests');
    expect(refused).toHaveLength(300 - 256);
    expect(answers.filter((frame) => 'result' in frame)).toHaveLength(256);
    // The surplus and the ping are answered at once, before the first call ends (§2.9, §11 item 21).
    const order = peer.lines.slice(from);
    const firstResult = order.findIndex((line) => line.includes('slept 1500 ms'));
    expect(order.slice(0, firstResult).filter((line) => line.includes('too_many_requests'))).toHaveLength(44);
    expect(order.slice(0, firstResult).some((line) => line.includes('"id":"p"'))).toBe(true);
    peer.closeStdin();
    await expectStop(peer, pids, 0);
  });

  it.for(['SIGTERM', 'SIGINT'] as const)(
    'sends %s during a call: exit 0 within 6 s, the child stopped',
    async (signal, context) => {
      context.skip(NO_POSIX_SIGNALS, 'this test sends POSIX signals (test/helpers/platform.ts)');
      const peer = start(context, [process.execPath, FIXTURE]);
      await handshake(peer);
      const pids = upstreams(peer);
      peer.send(req(2, 'tools/call', { name: 'slow', arguments: { ms: 20_000, note: MARKER } }));
      await waitFor(() => peer.stderr.includes(SLOW_STARTED), {
        timeoutMs: 10_000,
        what: 'the slow call at the fixture',
      });
      peer.child.kill(signal);
      await expectStop(peer, pids, 0);
    },
  );
});

describe('fault injection: floods (one at a time, they measure memory)', () => {
  /** The bridge in front of flood-forever; the test decides whether the client reads stdout. */
  function floodedBridge(): {
    child: ReturnType<typeof spawn>;
    stderr: string[];
    send: (frame: object) => void;
  } {
    const child = spawn(process.execPath, [BRIDGE, '--', ...scripted('flood-forever')], { stdio: 'pipe' });
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
    child.stdin.on('error', () => undefined);
    return { child, stderr, send: (frame) => void child.stdin.write(`${JSON.stringify(frame)}\n`) };
  }

  it('floods log messages: the bridge stays responsive and its memory bounded, then exits 0', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    faults.push(context.task.name);
    const { child, stderr, send } = floodedBridge();
    context.onTestFinished(() => void child.kill('SIGKILL'));
    let messages = 0;
    const waiting = new Map<string, (at: number) => void>();
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('{"jsonrpc":"2.0","method":"notifications/message"')) messages += 1;
      else {
        const id = (JSON.parse(line) as { id?: unknown }).id;
        waiting.get(JSON.stringify(id))?.(Date.now());
      }
    });
    const ask = (id: string, method: string, params?: object): Promise<number> => {
      const sent = Date.now();
      return new Promise((resolve) => {
        waiting.set(JSON.stringify(id), (at) => resolve(at - sent));
        send(req(id, method, params));
      });
    };
    await ask('level', 'logging/setLevel', { level: 'info' });
    await ask('init', 'initialize', (initializeRequest(0) as { params: object }).params);
    const pids = descendants(child.pid!);
    const samples: number[] = [];
    const latencies: number[] = [];
    for (let i = 0; i < 8; i++) {
      latencies.push(await ask(`ping-${i}`, 'ping'));
      samples.push(rssKiB(child.pid!) ?? 0);
      // The samples are spread over the flood by its messages, not by time: 50 more reach the client first.
      const seen = messages;
      await waitFor(() => messages >= seen + 50, { what: `50 log messages after sample ${i}` });
    }
    console.log(
      `flood (client reads): ${messages} log messages of 16 KiB; ping ${Math.max(...latencies)} ms at most; ` +
        `RSS ${Math.min(...samples)}–${Math.max(...samples)} KiB`,
    );
    expect(messages).toBeGreaterThan(100);
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(Math.max(...samples)).toBeLessThan(300 * 1024);
    child.stdin!.end();
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {
      timeoutMs: 1_500,
      what: 'no upstream process left',
    });
    expect(crashLines(stderr)).toEqual([]);
  });

  it('floods log messages while the client never reads stdout: memory stays bounded, and the bridge exits when the client goes away', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    faults.push(context.task.name);
    const { child, stderr, send } = floodedBridge();
    context.onTestFinished(() => void child.kill('SIGKILL'));
    // stdout is never read.
    send(req('level', 'logging/setLevel', { level: 'info' }));
    send(initializeRequest(0));
    // real timer: a stall is the subject. Nothing is read, so no event marks the flood filling the
    // pipes or the bridge holding still; it runs for 1.5 s, then memory is sampled over 4 s.
    await sleep(1_500);
    const pids = descendants(child.pid!);
    const samples: number[] = [];
    for (let i = 0; i < 8; i++) {
      await sleep(500);
      samples.push(rssKiB(child.pid!) ?? 0);
    }
    console.log(
      `flood (client never reads): RSS of the bridge ${Math.min(...samples)}–${Math.max(...samples)} KiB`,
    );
    expect(Math.max(...samples) - Math.min(...samples)).toBeLessThan(50 * 1024);
    expect(Math.max(...samples)).toBeLessThan(200 * 1024);
    // The client goes away: both pipes close; the bridge sees the end of stdin and stops.
    const eof = Date.now();
    child.stdout!.destroy();
    child.stdin!.end();
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(Date.now() - eof).toBeLessThan(EXIT_BOUND_MS);
    expect(code).toBe(0);
    await waitFor(() => pids.every((pid) => !isAlive(pid)), {
      timeoutMs: 1_500,
      what: 'no upstream process left',
    });
    expect(crashLines(stderr)).toEqual([]);
  });
});
