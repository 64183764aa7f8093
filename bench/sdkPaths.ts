/**
 * The SDK 2.x server's own cost per call on each of its two paths, in this process, without pipes,
 * lines or JSON: the fixture under `serveStdio` over an in-memory
 * transport, driven with frames as objects, 128 in flight. `legacy` is a 2025-11-25 connection
 * (`initialize`, then plain requests; the SDK's dual-era shim), `modern` a 2026-07-28 connection
 * (the `_meta` envelope on every request), which is the path the embedded legacy front end drives.
 * CPU time of this process per call: the floor under any front end that reaches the server
 * through its 2026-07-28 path.
 *
 *   node dist/bench/sdkPaths.js [--calls 40000] [--rounds 5] [--json]
 *
 * `--json` prints `{"legacy":[ms…],"modern":[ms…]}`, one value per round (the embedded scenario of
 * `npm run bench` records them).
 */
import { parseArgs } from 'node:util';
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createFixtureServer } from '../test/fixtures/fixtureFactory.js';
import { CLIENT_CAPABILITIES, CLIENT_INFO, LEGACY_VERSION, MODERN_VERSION } from './frames.js';

const { values } = parseArgs({
  options: { calls: { type: 'string' }, rounds: { type: 'string' }, json: { type: 'boolean' } },
});
const calls = Number(values.calls ?? '40000');
const rounds = Number(values.rounds ?? '5');
const WINDOW = 128;
const WARM_UP = 4_000;

type Era = 'legacy' | 'modern';

const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES,
};

/** A fresh frame per request, as a parser would make it. */
const echoFrame = (era: Era, id: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params:
    era === 'modern'
      ? { name: 'echo', arguments: { text: `m${id}` }, _meta: { ...ENVELOPE } }
      : { name: 'echo', arguments: { text: `m${id}` } },
});

async function run(era: Era): Promise<number> {
  let deliver: (message: JSONRPCMessage) => void = () => undefined;
  let onAnswer: (message: JSONRPCMessage) => void = () => undefined;
  const transport: Transport = {
    start: () => Promise.resolve(),
    send: (message) => {
      onAnswer(message);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  deliver = (message) => queueMicrotask(() => transport.onmessage?.(message));
  const handle = serveStdio(createFixtureServer({ manyTools: 0 }), {
    legacy: era === 'legacy' ? 'serve' : 'reject',
    transport,
    onerror: () => undefined,
  });
  if (era === 'legacy') {
    await new Promise<void>((resolve) => {
      onAnswer = () => resolve();
      deliver({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: {
          protocolVersion: LEGACY_VERSION,
          capabilities: CLIENT_CAPABILITIES,
          clientInfo: CLIENT_INFO,
        },
      });
    });
    deliver({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  const total = WARM_UP + calls;
  let nextId = 1;
  let answered = 0;
  let started = 0;
  let wrong = 0;
  const cpu = await new Promise<number>((resolve) => {
    onAnswer = (message) => {
      const result = (message as { result?: { content?: Array<{ text?: string }> } }).result;
      if (result?.content?.[0]?.text === undefined) wrong += 1;
      answered += 1;
      if (answered === WARM_UP) {
        const usage = process.cpuUsage();
        started = usage.user + usage.system;
      }
      if (answered === total) {
        const usage = process.cpuUsage();
        resolve(usage.user + usage.system - started);
      } else if (nextId <= total) deliver(echoFrame(era, nextId++));
    };
    for (let i = 0; i < WINDOW; i++) deliver(echoFrame(era, nextId++));
  });
  await handle.close();
  if (wrong > 0) throw new Error(`${era}: ${wrong} answers without the echo text`);
  return cpu / 1000 / calls;
}

const median = (values: number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const results: Record<Era, number[]> = { legacy: [], modern: [] };
for (let i = 0; i < rounds; i++) {
  for (const era of ['legacy', 'modern'] as const) results[era].push(await run(era));
}
if (values.json === true) {
  process.stdout.write(`${JSON.stringify(results)}\n`);
  process.exit(0);
}
const legacy = median(results.legacy);
const modern = median(results.modern);
process.stdout.write(
  `SDK server CPU per call in process, no I/O (ms, median of ${rounds}): ` +
    `legacy ${legacy.toFixed(4)}, modern ${modern.toFixed(4)}, modern/legacy ${(modern / legacy).toFixed(2)}×\n`,
);
process.exit(0);
