/**
 * `npm run soak` (not part of `npm test`): a bounded run of mixed traffic
 * through the built executable in front of the fixture server, with random cancellations, input
 * rounds answered like VS Code, list toggles and subscriptions, restarting the bridge and its
 * upstream between runs. It reports the requests answered, the errors by cause and the RSS of the
 * bridge over time, and exits with code 1 if any request went unanswered (or a run did not stop
 * cleanly).
 *
 *   node dist/test/soak/soak.js [--minutes 5] [--seed 1] [--run-seconds 30] [--concurrency 8]
 *                               [--property-runs 2000]
 *
 * Before the traffic it runs the property tests of test/reliability with --property-runs cases
 * each (0 skips them), through vitest, as `npm test` runs them with fewer cases.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const BRIDGE = `${root}dist/bin/mcp-bridge-vscode.js`;
const FIXTURE = `${root}dist/test/fixtures/fixtureServer.js`;
const PROPERTY_FILES = ['test/reliability/frontEndFuzz.test.ts', 'test/reliability/lineProperties.test.ts'];
/** How long the bridge may take to exit after the end of its stdin (docs/lifecycle.md#lifecycle-end-of-input). */
const EXIT_BOUND_MS = 6_000;
/** How long a run waits for the answers still missing after its traffic stopped. */
const SETTLE_MS = 30_000;

type Frame = Record<string, unknown>;

/** A small seeded generator (mulberry32), so that a seed replays the same traffic. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Totals {
  runs: number;
  sent: number;
  answered: number;
  results: number;
  cancelled: number;
  unanswered: number;
  bridgeRequests: number;
  errors: Map<string, number>;
  badExits: string[];
  rss: { at: number; kib: number }[];
}

/** The client side of one bridge process: raw JSON lines, ids, answers, bridge requests. */
class Client {
  readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<string, (frame: Frame) => void>();
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  readonly stderr: string[] = [];
  private nextId = 1;

  constructor(
    private readonly rng: () => number,
    private readonly totals: Totals,
  ) {
    this.child = spawn(process.execPath, [BRIDGE, '--', process.execPath, FIXTURE], { stdio: 'pipe' });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => resolve({ code, signal })),
    );
    createInterface({ input: this.child.stderr }).on('line', (line) => {
      if (this.stderr.length < 200) this.stderr.push(line);
    });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.onLine(line));
  }

  private onLine(line: string): void {
    let frame: Frame;
    try {
      frame = JSON.parse(line) as Frame;
    } catch {
      this.totals.errors.set('unparsable line', (this.totals.errors.get('unparsable line') ?? 0) + 1);
      return;
    }
    if (typeof frame['method'] === 'string' && typeof frame['id'] === 'string') {
      this.totals.bridgeRequests += 1;
      this.answer(frame);
      return;
    }
    if ('result' in frame || 'error' in frame) {
      const key = JSON.stringify(frame['id']);
      const resolve = this.waiting.get(key);
      this.waiting.delete(key);
      resolve?.(frame);
    }
  }

  /** Answers a bridge request like VS Code with a user who mostly accepts. */
  private answer(request: Frame): void {
    const params = (request['params'] ?? {}) as Frame;
    const decline = this.rng() < 0.1;
    let result: unknown;
    switch (request['method']) {
      case 'elicitation/create': {
        if (decline) result = { action: 'decline' };
        else if (params['mode'] === 'url') result = { action: 'accept' };
        else {
          const schema = (params['requestedSchema'] ?? {}) as { properties?: Record<string, Frame> };
          const content = Object.fromEntries(
            Object.entries(schema.properties ?? {}).map(([name, property]) => [
              name,
              Array.isArray(property['enum'])
                ? property['enum'][0]
                : property['type'] === 'integer' || property['type'] === 'number'
                  ? 36
                  : property['type'] === 'boolean'
                    ? true
                    : 'Ada',
            ]),
          );
          result = { action: 'accept', content };
        }
        break;
      }
      case 'sampling/createMessage':
        result = { model: 'soak', role: 'assistant', content: { type: 'text', text: 'hello' } };
        break;
      case 'roots/list':
        result = { roots: [{ uri: 'file:///soak', name: 'soak' }] };
        break;
      default:
        return;
    }
    const delayMs = Math.floor(this.rng() * 50);
    setTimeout(() => this.write({ jsonrpc: '2.0', id: request['id'], result }), delayMs);
  }

  write(frame: Frame): void {
    if (!this.child.stdin.writable) return;
    this.child.stdin.write(`${JSON.stringify(frame)}\n`);
  }

  /** Sends a request; resolves with its response, or undefined when `cancelAfterMs` cancels it first. */
  request(method: string, params?: Frame, cancelAfterMs?: number): Promise<Frame | undefined> {
    const id = this.nextId++;
    const key = JSON.stringify(id);
    this.totals.sent += 1;
    return new Promise((resolve) => {
      this.waiting.set(key, resolve);
      this.write(
        params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params },
      );
      if (cancelAfterMs !== undefined) {
        setTimeout(() => {
          if (!this.waiting.has(key)) return;
          // A cancelled request gets no response (§2.11): it is counted apart.
          this.waiting.delete(key);
          this.totals.cancelled += 1;
          this.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id } });
          resolve(undefined);
        }, cancelAfterMs);
      }
    });
  }

  notify(method: string, params?: Frame): void {
    this.write(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Requests still waiting for a response. */
  get pending(): number {
    return this.waiting.size;
  }

  /** Gives up on the requests still waiting: each is one unanswered request. */
  abandon(): number {
    const count = this.waiting.size;
    this.waiting.clear();
    return count;
  }
}

/** One action of the traffic mix: a request and, for some, a cancellation. */
function action(rng: () => number): { method: string; params?: Frame; cancelAfterMs?: number } {
  const call = (name: string, args: Frame = {}): { method: string; params: Frame } => ({
    method: 'tools/call',
    params: { name, arguments: args, _meta: { progressToken: `soak-${Math.floor(rng() * 1e9)}` } },
  });
  const pick = rng();
  if (pick < 0.2) return call('echo', { text: 'x'.repeat(Math.floor(rng() * 2000)) });
  if (pick < 0.27) return call('add', { a: Math.floor(rng() * 100), b: 2 });
  if (pick < 0.33) return call('progress', { count: 1 + Math.floor(rng() * 5) });
  if (pick < 0.37) return call('structured', { text: 'soak' });
  if (pick < 0.45) {
    // A slow call that the client may cancel before it ends.
    const ms = Math.floor(rng() * 400);
    return { ...call('slow', { ms }), ...(rng() < 0.5 ? { cancelAfterMs: Math.floor(rng() * 400) } : {}) };
  }
  if (pick < 0.6) {
    const tools = [
      'ask_form',
      'ask_url',
      'ask_url_twice',
      'confirm',
      'two_rounds',
      'ask_sample',
      'ask_roots',
      'multi',
    ];
    const name = tools[Math.floor(rng() * tools.length)]!;
    return { ...call(name), ...(rng() < 0.1 ? { cancelAfterMs: Math.floor(rng() * 30) } : {}) };
  }
  if (pick < 0.65) return call('toggle', { enabled: rng() < 0.5, target: rng() < 0.5 ? 'tool' : 'prompt' });
  if (pick < 0.68) return call('touch', { uri: 'file:///fixture/notes.txt' });
  if (pick < 0.7) return call('log');
  if (pick < 0.72) {
    // Requests that fail on purpose: an unknown tool, too many inputs, too many rounds.
    return call(['no_such_tool', 'many_inputs', 'never_stops', 'sample_tools'][Math.floor(rng() * 4)]!);
  }
  const lists: { method: string; params?: Frame }[] = [
    { method: 'tools/list' },
    { method: 'prompts/list' },
    { method: 'resources/list' },
    { method: 'resources/templates/list' },
    { method: 'resources/read', params: { uri: 'file:///fixture/notes.txt' } },
    { method: 'prompts/get', params: { name: 'greet', arguments: { name: 'Ada' } } },
    { method: 'prompts/get', params: { name: 'ask_name' } },
    {
      method: 'completion/complete',
      params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'A' } },
    },
    { method: 'resources/subscribe', params: { uri: 'file:///fixture/notes.txt' } },
    { method: 'resources/unsubscribe', params: { uri: 'file:///fixture/notes.txt' } },
    { method: 'logging/setLevel', params: { level: rng() < 0.5 ? 'debug' : 'warning' } },
    { method: 'ping' },
  ];
  return lists[Math.floor(rng() * lists.length)]!;
}

function rssKiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

function countError(totals: Totals, frame: Frame): void {
  const error = frame['error'] as { code?: number; data?: { cause?: string } } | undefined;
  if (error === undefined) return;
  const cause = error.data?.cause ?? `upstream error ${String(error.code)}`;
  totals.errors.set(cause, (totals.errors.get(cause) ?? 0) + 1);
}

async function oneRun(
  rng: () => number,
  totals: Totals,
  runMs: number,
  concurrency: number,
  started: number,
): Promise<void> {
  const client = new Client(rng, totals);
  const sampler = setInterval(() => {
    const kib = rssKiB(client.child.pid);
    if (kib !== undefined) totals.rss.push({ at: Date.now() - started, kib });
  }, 1_000);
  try {
    const init = await client.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } },
      clientInfo: { name: 'soak', version: '1.0.0' },
    });
    if (init === undefined || !('result' in init)) throw new Error('initialize failed');
    totals.answered += 1;
    totals.results += 1;
    client.notify('notifications/initialized');
    const until = Date.now() + runMs;
    const worker = async (): Promise<void> => {
      while (Date.now() < until) {
        const next = action(rng);
        const response = await client.request(next.method, next.params, next.cancelAfterMs);
        if (response === undefined) continue;
        totals.answered += 1;
        if ('result' in response) totals.results += 1;
        else countError(totals, response);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    // Wait for the answers still missing (there should be none: each worker awaits its own).
    const settleUntil = Date.now() + SETTLE_MS;
    while (client.pending > 0 && Date.now() < settleUntil) await new Promise((r) => setTimeout(r, 50));
    totals.unanswered += client.abandon();
  } finally {
    const eofAt = Date.now();
    client.child.stdin.end();
    const exit = await Promise.race([
      client.exited,
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), EXIT_BOUND_MS + 2_000)),
    ]);
    clearInterval(sampler);
    const tookMs = Date.now() - eofAt;
    if (exit === undefined || exit.code !== 0 || tookMs > EXIT_BOUND_MS) {
      totals.badExits.push(`run ${totals.runs + 1}: exit ${JSON.stringify(exit)} after ${tookMs} ms`);
      client.child.kill('SIGKILL');
    }
    totals.runs += 1;
  }
}

function runProperties(runs: number, seed: number): boolean {
  if (runs <= 0) return true;
  process.stdout.write(`property tests: ${runs} cases each, seed ${seed}\n`);
  const vitest = `${root}node_modules/vitest/vitest.mjs`;
  const result = spawnSync(process.execPath, [vitest, 'run', ...PROPERTY_FILES], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, MCP_BRIDGE_PROPERTY_RUNS: String(runs), MCP_BRIDGE_PROPERTY_SEED: String(seed) },
  });
  return result.status === 0;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '5' },
      seed: { type: 'string', default: '1' },
      'run-seconds': { type: 'string', default: '30' },
      concurrency: { type: 'string', default: '8' },
      'property-runs': { type: 'string', default: '2000' },
    },
  });
  const minutes = Number(values.minutes);
  const seed = Number(values.seed);
  const runMs = Number(values['run-seconds']) * 1000;
  const concurrency = Number(values.concurrency);
  const propertyRuns = Number(values['property-runs']);
  if (
    ![minutes, seed, runMs, concurrency, propertyRuns].every(Number.isFinite) ||
    minutes <= 0 ||
    concurrency < 1
  ) {
    process.stderr.write(
      'soak: --minutes, --seed, --run-seconds, --concurrency and --property-runs take numbers\n',
    );
    return 2;
  }
  const propertiesPassed = runProperties(propertyRuns, seed);

  const rng = random(seed);
  const totals: Totals = {
    runs: 0,
    sent: 0,
    answered: 0,
    results: 0,
    cancelled: 0,
    unanswered: 0,
    bridgeRequests: 0,
    errors: new Map(),
    badExits: [],
    rss: [],
  };
  const started = Date.now();
  const deadline = started + minutes * 60_000;
  process.stdout.write(
    `soak: ${minutes} min, seed ${seed}, runs of ${runMs / 1000} s, ${concurrency} workers\n`,
  );
  while (Date.now() < deadline) {
    await oneRun(rng, totals, Math.min(runMs, Math.max(1_000, deadline - Date.now())), concurrency, started);
    process.stdout.write(
      `  run ${totals.runs}: ${totals.answered} answered so far, ${totals.unanswered} unanswered\n`,
    );
  }

  const kib = totals.rss.map((sample) => sample.kib);
  const minutesOf = (ms: number): string => `${(ms / 60_000).toFixed(1)} min`;
  const perMinute = new Map<number, number[]>();
  for (const sample of totals.rss) {
    const minute = Math.floor(sample.at / 60_000);
    perMinute.set(minute, [...(perMinute.get(minute) ?? []), sample.kib]);
  }
  const lines = [
    `soak report (${minutesOf(Date.now() - started)}, seed ${seed})`,
    `  runs (bridge and upstream restarted each time): ${totals.runs}`,
    `  requests sent: ${totals.sent}; answered: ${totals.answered} (results ${totals.results}, errors ${totals.answered - totals.results}); cancelled by the client: ${totals.cancelled}; unanswered: ${totals.unanswered}`,
    `  requests of the bridge answered by the client: ${totals.bridgeRequests}`,
    `  errors by cause: ${
      totals.errors.size === 0
        ? 'none'
        : [...totals.errors]
            .sort(([, a], [, b]) => b - a)
            .map(([cause, count]) => `${cause} ${count}`)
            .join(', ')
    }`,
    `  RSS of the bridge: min ${Math.min(...kib)} KiB, max ${Math.max(...kib)} KiB over ${kib.length} samples`,
    ...[...perMinute].map(
      ([minute, samples]) => `    minute ${minute + 1}: ${Math.min(...samples)}–${Math.max(...samples)} KiB`,
    ),
    `  runs that did not stop cleanly within ${EXIT_BOUND_MS} ms after the end of stdin: ${
      totals.badExits.length === 0 ? 'none' : totals.badExits.join('; ')
    }`,
    `  property tests: ${propertyRuns <= 0 ? 'skipped' : propertiesPassed ? 'passed' : 'FAILED'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return totals.unanswered === 0 && totals.badExits.length === 0 && propertiesPassed ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`soak: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
