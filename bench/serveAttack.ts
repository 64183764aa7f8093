/**
 * RSS of `serve` under the two memory attacks of docs/serve.md#serve-limits, each in a fresh
 * process in front of the cheap echo upstream (its `big` tool answers `arguments.bytes` bytes):
 *
 * - `bodies`: `--count` connections each send the headers of a 4,000,000-byte POST and 3.9 MB of
 *   it, and never the rest.
 * - `unread`: `--count` sessions each call `big` for `--answer-bytes` and never read the answer.
 *
 * It prints VmRSS of the serve process (/proc/<pid>/status, Linux) before the attack, once the
 * attack is in place (`--hold` seconds after it was sent), again after `--after` seconds, when
 * the limits had their time (the body timeout, two checks of unread output), and `--hold` seconds
 * after a second wave of the same attack:
 *
 *   node dist/bench/serveAttack.js [--bin <build>/dist/bin/mcp-bridge.js] [--count 40] [-- <serve options>]
 *
 * The default binary is this build's `dist/bin/mcp-bridge.js`; the serve options after `--` are
 * passed as they are (an older build takes none of the new limits).
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { memoryMiB } from './proc.js';
import { PATHS } from './targets.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    bin: { type: 'string' },
    count: { type: 'string' },
    'answer-bytes': { type: 'string' },
    hold: { type: 'string' },
    after: { type: 'string' },
    only: { type: 'string' },
  },
});
const BIN = values.bin ?? join(PATHS.bridge, '..', 'mcp-bridge.js');
const COUNT = Number(values.count ?? '40');
const ANSWER_BYTES = Number(values['answer-bytes'] ?? String(8 * 1024 * 1024));
const HOLD_S = Number(values.hold ?? '10');
const AFTER_S = Number(values.after ?? '40');
const SERVE_ARGS = positionals;

interface Served {
  readonly port: number;
  readonly pid: number;
  stop(): void;
}

/** `serve` in front of the echo upstream; resolves once it listens. */
function startServe(): Promise<Served> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', ...SERVE_ARGS, '--', process.execPath, PATHS.scripted, '--mode', 'echo'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      seen += chunk;
      const url = /serve: listening on (http:\/\/\S+)/.exec(seen)?.[1];
      if (url !== undefined && seen.length - chunk.length <= seen.indexOf(url)) {
        resolve({ port: Number(new URL(url).port), pid: child.pid ?? 0, stop: () => child.kill('SIGKILL') });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** A session of revision 2025-11-25; resolves with its id. */
async function session(port: number): Promise<string> {
  const url = `http://127.0.0.1:${port}/mcp`;
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'attack', version: '1' },
      },
    }),
  });
  const id = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  const headers = { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
  const done = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await done.text();
  return id;
}

/** A raw POST on its own socket that reads nothing. */
function rawPost(port: number, headers: Record<string, string>, length: number, body: string): Socket {
  const socket = connect({ host: '127.0.0.1', port });
  socket.pause();
  socket.on('error', () => undefined);
  const head = [
    'POST /mcp HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    ...Object.entries({ ...HEADERS, ...headers }).map(([k, v]) => `${k}: ${v}`),
    `Content-Length: ${length}`,
    '',
    '',
  ].join('\r\n');
  socket.write(head + body);
  return socket;
}

const ATTACKS = {
  /** Bodies that never end: 3.9 MB of a 4,000,000-byte body each. */
  bodies: async (port: number): Promise<Socket[]> => {
    const id = await session(port);
    const part = 'x'.repeat(3_900_000);
    return Array.from({ length: COUNT }, () =>
      rawPost(port, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' }, 4_000_000, part),
    );
  },
  /** Answers never read: one `big` call per session on a socket that reads nothing. */
  unread: async (port: number): Promise<Socket[]> => {
    const sockets: Socket[] = [];
    for (let i = 0; i < COUNT; i++) {
      const id = await session(port);
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'big', arguments: { bytes: ANSWER_BYTES } },
      });
      sockets.push(
        rawPost(
          port,
          { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
          Buffer.byteLength(body),
          body,
        ),
      );
    }
    return sockets;
  },
};

const rss = (pid: number): string => memoryMiB(pid).rss.toFixed(0);

process.stdout.write(
  `serve ${BIN} ${SERVE_ARGS.join(' ')}\n${COUNT} attackers; VmRSS of serve in MiB\n\n` +
    `| attack | before | after ${HOLD_S} s | after ${AFTER_S} s | ${HOLD_S} s after a second wave at ${AFTER_S} s |\n| --- | --- | --- | --- | --- |\n`,
);
for (const [name, attack] of Object.entries(ATTACKS)) {
  if (values.only !== undefined && values.only !== name) continue;
  const served = await startServe();
  await sleep(2_000); // real timer: the process settles after its start
  const before = rss(served.pid);
  const sockets = await attack(served.port);
  await sleep(HOLD_S * 1000); // real timer: the attack is in place
  const held = rss(served.pid);
  await sleep((AFTER_S - HOLD_S) * 1000); // real timer: the limits had their time
  const after = rss(served.pid);
  // A second wave: freed memory is not always given back to the system, so RSS after the limits
  // shows little; what a second wave adds shows whether the first one's memory was freed.
  const again = await attack(served.port);
  await sleep(HOLD_S * 1000); // real timer: the second attack is in place
  const second = rss(served.pid);
  process.stdout.write(`| ${name} | ${before} | ${held} | ${after} | ${second} |\n`);
  for (const socket of [...sockets, ...again]) socket.destroy();
  served.stop();
}
process.exit(0);
