/**
 * The HTTP side of the serve benchmark (bench/scenarios/serve.ts): `mcp-bridge-vscode serve` as a
 * process in front of the cheap echo upstream, and a raw session of revision 2025-11-25 over
 * `fetch` (a POST per request; the answer is JSON or an event stream, docs/serve.md#serve-responses).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { INITIALIZED_LINE, initializeLine } from './frames.js';
import type { Frame } from './rawClient.js';
import { PATHS } from './targets.js';

export interface ServeProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  close(): Promise<void>;
}

const LISTENING = /serve: listening on (http:\/\/\S+)/;

/** Starts serve in front of the echo upstream; resolves once it prints its URL. */
export function startServe(): Promise<ServeProcess> {
  const upstream = [PATHS.scripted, '--mode', 'echo'];
  const child = spawn(
    process.execPath,
    [PATHS.bridge, 'serve', '--listen', '127.0.0.1:0', '--', process.execPath, ...upstream],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  return new Promise((resolve, reject) => {
    let seen = '';
    child.once('exit', (code) => reject(new Error(`serve exited with ${String(code)}`)));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      seen += chunk;
      const url = LISTENING.exec(seen)?.[1];
      if (url === undefined) return;
      child.stderr.removeAllListeners('data');
      child.stderr.resume();
      resolve({
        url,
        pid: child.pid ?? 0,
        child,
        close: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** The JSON-RPC response of `id` in a reply: its JSON body, or the event of the stream that holds it. */
async function responseOf(reply: Response, id: number | string): Promise<Frame> {
  const body = await reply.text();
  if (!String(reply.headers.get('content-type')).startsWith('text/event-stream'))
    return JSON.parse(body) as Frame;
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const frame = JSON.parse(line.slice(6)) as Frame;
    if (frame['id'] === id) return frame;
  }
  throw new Error(`no response to ${String(id)} in the event stream`);
}

export interface HttpSession {
  /** Sends one request line; resolves with its response. */
  request(id: number, line: string): Promise<Frame>;
  close(): Promise<void>;
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Initializes a session (initialize, then notifications/initialized). */
export async function openSession(url: string): Promise<HttpSession> {
  const init = await fetch(url, { method: 'POST', headers: HEADERS, body: initializeLine('init') });
  const session = init.headers.get('mcp-session-id');
  const answer = await responseOf(init, 'init');
  if (session === null || answer['result'] === undefined)
    throw new Error(`initialize: ${JSON.stringify(answer)}`);
  const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  const done = await fetch(url, { method: 'POST', headers, body: INITIALIZED_LINE });
  await done.arrayBuffer();
  return {
    request: async (id, line) => responseOf(await fetch(url, { method: 'POST', headers, body: line }), id),
    close: async () => {
      await (await fetch(url, { method: 'DELETE', headers })).arrayBuffer();
    },
  };
}
