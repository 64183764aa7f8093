/**
 * The bridge's own JavaScript per forwarded call, without processes and pipes: the
 * client lines go through decodeLines, the vscode profile's bridge and encodeFrames as in
 * serveStdio; the upstream is createRpcConnection over an in-memory echo server that answers each
 * chunk of requests in one chunk of lines from a microtask. CPU time of this process per call, so
 * a change to the hot path shows without the noise of the other processes on the machine.
 *
 *   node dist/bench/inproc.js [--calls 50000] [--window 128] [--rounds 5]
 */
import { Observable, Subject } from 'rxjs';
import { parseArgs } from 'node:util';
import { decodeLines } from '../operators/decodeLines.js';
import { encodeFrames } from '../operators/encodeFrames.js';
import { DEFAULT_LIMITS } from '../src/bridge/config.js';
import { ajvInputChecks } from '../src/node/inputChecks.js';
import { createRpcConnection } from '../src/bridge/rpcConnection.js';
import type { LineTransport } from '../src/ports/lineTransport.js';
import type { Logger } from '../src/ports/logger.js';
import { createProfileBridge } from '../src/profiles/bridge.js';
import { vscodeProfile } from '../src/profiles/vscode.js';
import type { Frame } from '../src/protocol/jsonrpc.js';
import { echoLine, initializeLine, INITIALIZED_LINE } from './frames.js';

const { values } = parseArgs({
  options: { calls: { type: 'string' }, window: { type: 'string' }, rounds: { type: 'string' } },
});
const calls = Number(values.calls ?? '50000');
const window = Number(values.window ?? '128');
const rounds = Number(values.rounds ?? '5');

const logger: Logger = { enabled: () => false, log: () => undefined };
const DISCOVER = JSON.stringify({
  supportedVersions: ['2026-07-28'],
  capabilities: { tools: {} },
  ttlMs: 0,
  cacheScope: 'private',
  _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'echo', version: '1.0.0' } },
});
const ECHO_HEAD = '{"jsonrpc":"2.0","result":{"resultType":"complete","content":[{"type":"text","text":';

/** The echo upstream: parses each request line and answers from prepared text, a chunk per turn. */
function echoTransport(): LineTransport {
  const chunks$ = new Subject<Uint8Array>();
  let out: string[] = [];
  const answer = (): void => {
    const lines = out;
    out = [];
    let text = '';
    for (const line of lines) {
      const request = JSON.parse(line) as {
        id: number;
        method: string;
        params: { arguments?: { text?: string } };
      };
      text +=
        request.method === 'server/discover'
          ? `{"jsonrpc":"2.0","id":${request.id},"result":${DISCOVER}}\n`
          : `${ECHO_HEAD}${JSON.stringify(request.params.arguments?.text ?? '')}}]},"id":${request.id}}\n`;
    }
    if (text.length > 0) chunks$.next(Buffer.from(text));
  };
  return {
    inbound$: chunks$.pipe(decodeLines({ maxDepth: 1024 })),
    send: (frame: Frame) => {
      const line = JSON.stringify(frame);
      if (out.length === 0) setImmediate(answer);
      out.push(line);
    },
    exit$: new Observable(() => undefined),
    close: () => chunks$.complete(),
  };
}

async function run(): Promise<number> {
  const bridge = createProfileBridge(
    vscodeProfile,
    { version: '0.0.0', fallbackName: 'echo', limits: DEFAULT_LIMITS },
    {
      connect: () => new Observable((s) => s.next(createRpcConnection(echoTransport(), logger))),
      logger,
      // As the executable (src/node/serveStdio.ts): loaded only when a round asks for input.
      checks: ajvInputChecks,
    },
  );
  const input$ = new Subject<Uint8Array>();
  let pendingIn: string[] = [];
  const send = (line: string): void => {
    if (pendingIn.length === 0) setImmediate(flushIn);
    pendingIn.push(line);
  };
  const flushIn = (): void => {
    const text = `${pendingIn.join('\n')}\n`;
    pendingIn = [];
    input$.next(Buffer.from(text));
  };
  let nextId = 1;
  let sent = 0;
  let answered = 0;
  let started = 0;
  let cpu = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const total = calls + 2_000;
  const sendCall = (): void => {
    sent += 1;
    send(echoLine('legacy', nextId++));
  };
  const output = input$.pipe(decodeLines(), bridge, encodeFrames());
  const subscription = output.subscribe((line) => {
    const frame = JSON.parse(line) as { id?: unknown };
    if (frame.id === 'init') {
      send(INITIALIZED_LINE);
      for (let i = 0; i < window; i++) sendCall();
      return;
    }
    answered += 1;
    if (answered === 2_000) {
      started = process.cpuUsage().user + process.cpuUsage().system;
    }
    if (answered === total) {
      const usage = process.cpuUsage();
      cpu = usage.user + usage.system - started;
      done();
    } else if (sent < total) sendCall();
  });
  send(initializeLine('init'));
  await finished;
  subscription.unsubscribe();
  input$.complete();
  return cpu / 1000 / calls;
}

const results: number[] = [];
for (let i = 0; i < rounds; i++) results.push(await run());
results.sort((a, b) => a - b);
process.stdout.write(
  `in-process CPU per call (ms): median ${results[Math.floor(results.length / 2)]!.toFixed(5)}, all ${results.map((r) => r.toFixed(5)).join(' ')}\n`,
);
process.exit(0);
