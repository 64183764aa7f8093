/**
 * Starts the built `mcp-bridge-vscode` in front of an upstream, for transcript and process tests
 * that speak raw JSON-RPC lines to the real executable.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { WIRE_ERRORS } from './wireErrors.js';
import type { WireCause as Cause } from './wireErrors.js';
import { processTable } from './processTable.js';
import { spawnPeer } from './rawPeer.js';
import type { PeerExit, RawPeer } from './rawPeer.js';
import { findModernLeaks, validateLegacyFrame } from './schemas.js';
import { bridgeChildren, daemonLog, SHARED_MATRIX } from './sharedMatrix.js';
import { waitFor, waitForValue } from './waitFor.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** The executable as it ships: the one-file bundle of `npm run build` (scripts/bundle.ts). */
export const BRIDGE = `${root}dist/bin/mcp-bridge-vscode.js`;
/** The second executable, `mcp-bridge`: the same CLI with the generic profile. */
export const GENERIC_BRIDGE = `${root}dist/bin/mcp-bridge.js`;
export const FIXTURE = `${root}dist/test/fixtures/fixtureServer.js`;
export const SCRIPTED = `${root}dist/test/fixtures/scriptedUpstream.js`;

/** The `initialize` of VS Code 1.140 (docs/testing.md#testing-infrastructure). */
export const VSCODE_CAPABILITIES = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: {}, url: {} },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
  extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } },
};

export function initializeRequest(
  id: string | number = 1,
  capabilities: object = VSCODE_CAPABILITIES,
): object {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities,
      clientInfo: { name: 'Visual Studio Code', version: '1.140.0' },
    },
  };
}

export const req = (id: string | number, method: string, params?: object): object =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

export const note = (method: string, params?: object): object =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

/** `mcp-bridge-vscode [bridgeArgs] -- node <fixture> [fixtureArgs]`. */
export function startBridge(
  options: { bridgeArgs?: string[]; upstream?: string[]; env?: NodeJS.ProcessEnv } = {},
): RawPeer {
  const upstream = options.upstream ?? [process.execPath, FIXTURE];
  return spawnPeer(process.execPath, [BRIDGE, ...(options.bridgeArgs ?? []), '--', ...upstream], options.env);
}

export const scripted = (mode: string): string[] => [process.execPath, SCRIPTED, '--mode', mode];

/** Initializes and sends notifications/initialized; returns the initialize response. */
export async function handshake(
  peer: RawPeer,
  capabilities: object = VSCODE_CAPABILITIES,
): Promise<Record<string, unknown>> {
  peer.send(initializeRequest(1, capabilities));
  const response = await peer.nextFrame((f) => f.id === 1);
  peer.send(note('notifications/initialized'));
  return response;
}

/**
 * As handshake, with a `tools/list` (id `listed`) before `notifications/initialized`: the first
 * acknowledgment of the listen stream then sends one `notifications/tools/list_changed` for that
 * list (README.md "List changes and subscriptions"), which a test awaits to know the listener runs.
 */
export async function handshakeWithToolsList(
  peer: RawPeer,
  capabilities: object = VSCODE_CAPABILITIES,
): Promise<Record<string, unknown>> {
  peer.send(initializeRequest(1, capabilities));
  const response = await peer.nextFrame((f) => f.id === 1);
  peer.send(req('listed', 'tools/list'));
  await peer.nextFrame((f) => f.id === 'listed');
  peer.send(note('notifications/initialized'));
  return response;
}

/** Every stderr line of the bridge has the tag (docs/logging.md#logging-line-format). */
export const untaggedLines = (stderr: readonly string[]): string[] =>
  stderr.filter(
    (line) => !line.startsWith('mcp-bridge-vscode: ') && !line.startsWith('bridge-fixture-server: '),
  );

// ---------------------------------------------------------------------------------------------
// Helpers of the transcript and process tests in test/process (frames, lifecycle, forward…).

/**
 * What is wrong with a frame the bridge wrote to the client: its errors against the 2025-11-25
 * schema (the result checked as the result of `method`), and every 2026-07-28 member in it.
 * `allow` lists keys that may pass the leak check (the MCP Apps id `io.modelcontextprotocol/ui`).
 */
export function clientFrameProblems(
  frame: Record<string, unknown>,
  method?: string,
  allow: readonly string[] = [],
): string[] {
  return [...validateLegacyFrame(frame, 'toClient', method), ...findModernLeaks(frame, allow)];
}

/**
 * The pids of the direct children of a process, and whether a process runs (Linux /proc). Both
 * throw when the process table cannot be read (test/helpers/processTable.ts). Without /proc
 * (macOS, Windows) whether a process runs is what the signal 0 tells; tests that need the
 * children skip there with their reason (test/helpers/platform.ts). In the `--shared` run of the
 * matrix the children of a shim are those of its shared process (sharedMatrix.ts).
 */
export const childPids = (pid: number): number[] => bridgeChildren(pid);
export function isRunning(pid: number): boolean {
  if (process.platform === 'linux') return processTable.isRunning(pid);
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    if ((error as { code?: unknown }).code === 'ESRCH') return false;
    throw error;
  }
}

/** Resolves with the exit of a peer and its time from now; rejects after `boundMs`. */
export async function exitWithin(peer: RawPeer, boundMs: number): Promise<PeerExit & { ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the process did not exit in ${boundMs} ms`)), boundMs);
  });
  try {
    const exit = await Promise.race([peer.exit, late]);
    return { ...exit, ms: Date.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The pids an upstream of a process test appended to `file`, one a line, in start order; none
 * while it wrote none.
 */
export function pidsInFile(file: string): number[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** The pid of the upstream child of a bridge once it runs (after `initialize` started it). */
export async function upstreamPid(bridge: RawPeer, timeoutMs = 10_000): Promise<number> {
  const pid = bridge.child.pid;
  if (pid === undefined) throw new Error('the bridge has no pid');
  await waitFor(() => childPids(pid).length > 0, { timeoutMs, what: 'the upstream child' });
  return childPids(pid)[0]!;
}

/** The stderr lines written by the bridge itself (not by its upstream). */
export const bridgeLines = (stderr: readonly string[]): string[] =>
  stderr.filter((line) => line.startsWith('mcp-bridge-vscode: '));

// ---------------------------------------------------------------------------------------------
// Helpers of the input-request, notification and interop tests (test/process/input*,
// test/process/notify*, test/interop).

/** Each stderr line of a `tapped` upstream: `upstream-tap: > <line>` to it, `< <line>` from it. */
export const TAP_PREFIX = 'upstream-tap: ';

/**
 * A pass-through process between the bridge and its upstream (run with `node -e`): it copies each
 * line of both pipes unchanged and writes it to stderr too, so that a test sees exactly what the
 * upstream got. Its own stdin end ends the upstream's stdin; it exits with the upstream's code.
 */
const TAP_SOURCE = [
  "const { spawn } = require('node:child_process');",
  "const { createInterface } = require('node:readline');",
  "const child = spawn(process.argv[1], process.argv.slice(2), { stdio: ['pipe', 'pipe', 'inherit'] });",
  `const log = (direction, line) => process.stderr.write('${TAP_PREFIX}' + direction + ' ' + line + '\\n');`,
  "child.stdin.on('error', () => undefined);",
  'createInterface({ input: process.stdin, crlfDelay: Infinity })',
  "  .on('line', (line) => { log('>', line); child.stdin.write(line + '\\n'); })",
  "  .on('close', () => child.stdin.end());",
  'createInterface({ input: child.stdout, crlfDelay: Infinity })',
  "  .on('line', (line) => { log('<', line); process.stdout.write(line + '\\n'); });",
  "child.on('exit', (code) => process.exit(code ?? 1));",
].join('\n');

/** The upstream command (the fixture by default) behind a tap that logs every line to stderr. */
export const tapped = (upstream: readonly string[] = [process.execPath, FIXTURE]): string[] => [
  process.execPath,
  '-e',
  TAP_SOURCE,
  ...upstream,
];

/**
 * Where the upstream's stderr goes: the bridge's stderr, or in the `--shared` run of the matrix
 * the log of the shim's shared process (docs/shared.md#shared-sessions).
 */
export const upstreamStderr = (peer: RawPeer): readonly string[] =>
  SHARED_MATRIX && peer.child.pid !== undefined ? daemonLog(peer.child.pid) : peer.stderr;

/** The tapped frames of each peer parsed so far, so that polling parses each stderr line once. */
const tappedFrames = new WeakMap<
  RawPeer,
  { scanned: number; '>': Record<string, unknown>[]; '<': Record<string, unknown>[] }
>();

/** The frames the tapped upstream got (`>`) or sent (`<`) so far, in order. */
export function upstreamFrames(peer: RawPeer, direction: '>' | '<'): Record<string, unknown>[] {
  let parsed = tappedFrames.get(peer);
  if (parsed === undefined) {
    parsed = { scanned: 0, '>': [], '<': [] };
    tappedFrames.set(peer, parsed);
  }
  const stderr = upstreamStderr(peer);
  for (; parsed.scanned < stderr.length; parsed.scanned++) {
    const line = stderr[parsed.scanned]!;
    if (!line.startsWith(TAP_PREFIX)) continue;
    const way = line.slice(TAP_PREFIX.length, TAP_PREFIX.length + 1);
    if (way !== '>' && way !== '<') continue;
    try {
      parsed[way].push(JSON.parse(line.slice(TAP_PREFIX.length + 2)) as Record<string, unknown>);
    } catch {
      // Not a frame: the upstream wrote something else.
    }
  }
  return [...parsed[direction]];
}

/** Resolves with the tapped frames that match once there is at least one. */
export function untilUpstream(
  peer: RawPeer,
  direction: '>' | '<',
  predicate: (frame: Record<string, unknown>) => boolean,
  timeoutMs = 10_000,
): Promise<Record<string, unknown>[]> {
  return waitForValue(
    () => {
      const found = upstreamFrames(peer, direction).filter(predicate);
      return found.length > 0 ? found : undefined;
    },
    { timeoutMs, what: `a matching upstream frame (${direction})` },
  );
}

/**
 * A tiny 2026-07-28 upstream (run with `node -e`) for what the fixture server does not do:
 * - tool `progress_rounds`: progress in each of three rounds (1; 1 again and 2; 3), two forms;
 * - tool `end_listen`: ends each open listen stream with an upstream `notifications/cancelled`,
 *   before its own result, or after it with `arguments.after: true`;
 * - tool `ask_anyway`: asks by `arguments.kind` for the roots (`roots`), a form and the roots
 *   (`form_and_roots`), a sampling with tools (`sampling_tools`), a form without message
 *   (`no_message`) or a `ping` (`unknown_method`),
 *   whatever the client declared and whether it is valid, as a careless server would;
 * - tool `url_then_form`: asks for a URL, then for a form in the next round;
 * - prompt `refused`: asks a form with a requestState, then refuses that state with -32602.
 * It declares `tools.listChanged` (so the bridge listens) and `prompts`.
 */
const MINI_UPSTREAM_SOURCE = [
  "const { createInterface } = require('node:readline');",
  "const out = (frame) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...frame }) + '\\n');",
  'const listens = [];',
  "const form = (key) => ({ method: 'elicitation/create', params: { mode: 'form', message: 'Say ' + key + '.',",
  "  requestedSchema: { type: 'object', properties: { [key]: { type: 'string' } }, required: [key] } } });",
  "const text = (value) => ({ resultType: 'complete', content: [{ type: 'text', text: value }] });",
  'const endListens = () => { for (const id of listens.splice(0)) out({ method: "notifications/cancelled",',
  "  params: { requestId: id, reason: 'the mini upstream ends the stream' } }); };",
  "createInterface({ input: process.stdin, crlfDelay: Infinity }).on('line', (line) => {",
  '  let m; try { m = JSON.parse(line); } catch { return; }',
  "  if (m.id === undefined || typeof m.method !== 'string') return;",
  '  const p = m.params || {};',
  '  const token = p._meta && p._meta.progressToken;',
  "  const progress = (value) => out({ method: 'notifications/progress', params: { progressToken: token,",
  "    progress: value, total: 3, message: 'step ' + value } });",
  '  const reply = (result) => out({ id: m.id, result });',
  "  const ask = (inputRequests, requestState) => reply({ resultType: 'input_required', inputRequests, requestState });",
  '  switch (m.method) {',
  "    case 'server/discover': return reply({ resultType: 'complete', supportedVersions: ['2026-07-28'],",
  '      capabilities: { tools: { listChanged: true }, prompts: {} },',
  "      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'mini-upstream', version: '0.0.0' } } });",
  "    case 'subscriptions/listen': listens.push(m.id); return out({ method: 'notifications/subscriptions/acknowledged',",
  "      params: { notifications: p.notifications, _meta: { 'io.modelcontextprotocol/subscriptionId': m.id } } });",
  "    case 'tools/list': return reply({ resultType: 'complete', tools: ['progress_rounds', 'end_listen', 'ask_anyway', 'url_then_form']",
  "      .map((name) => ({ name, inputSchema: { type: 'object' } })) });",
  "    case 'tools/call':",
  "      if (p.name === 'end_listen') {",
  "        if (p.arguments && p.arguments.after) { reply(text('ended')); return setImmediate(endListens); }",
  "        endListens(); return reply(text('ended'));",
  '      }',
  "      if (p.name === 'ask_anyway') return ask({",
  "        roots: { dirs: { method: 'roots/list' } },",
  "        form_and_roots: { name: form('name'), dirs: { method: 'roots/list' } },",
  "        sampling_tools: { model: { method: 'sampling/createMessage', params: { maxTokens: 5, tools: [{ name: 'clock',",
  "          inputSchema: { type: 'object' } }], messages: [{ role: 'user', content: { type: 'text', text: 'Time?' } }] } } },",
  "        no_message: { broken: { method: 'elicitation/create', params: { mode: 'form',",
  "          requestedSchema: { type: 'object', properties: { x: { type: 'string' } } } } } },",
  "        unknown_method: { ping: { method: 'ping' } },",
  '      }[p.arguments.kind]);',
  "      if (p.name === 'url_then_form') {",
  "        if (p.requestState === undefined) return ask({ login: { method: 'elicitation/create',",
  "          params: { mode: 'url', message: 'Sign in.', url: 'https://mini.example.com/login' } } }, 'url:2');",
  "        if (p.requestState === 'url:2') return ask({ name: form('name') }, 'url:3');",
  "        return reply(text('url then form: ' + JSON.stringify(p.inputResponses)));",
  '      }',
  "      if (p.name !== 'progress_rounds') return out({ id: m.id, error: { code: -32602, message: 'Unknown tool' } });",
  "      if (p.requestState === undefined) { progress(1); return ask({ first: form('first') }, 'round:2'); }",
  "      if (p.requestState === 'round:2') { progress(1); progress(2); return ask({ second: form('second') }, 'round:3'); }",
  "      progress(3); return reply(text('three rounds: ' + JSON.stringify(p.inputResponses)));",
  "    case 'prompts/list': return reply({ resultType: 'complete', prompts: [{ name: 'refused' }] });",
  "    case 'prompts/get':",
  "      if (p.requestState === undefined) return ask({ ok: form('ok') }, 'refused:1');",
  "      return out({ id: m.id, error: { code: -32602, message: 'Invalid or expired requestState',",
  "        data: { reason: 'invalid_request_state' } } });",
  "    default: return out({ id: m.id, error: { code: -32601, message: 'Method not found' } });",
  '  }',
  "}).on('close', () => process.exit(0));",
].join('\n');

/** The command of the tiny upstream of MINI_UPSTREAM_SOURCE. */
export const miniUpstream = (): string[] => [process.execPath, '-e', MINI_UPSTREAM_SOURCE];

/** A predicate for a request of the bridge to the client: a string id `b-N` and `method`. */
export const bridgeRequest =
  (method: string) =>
  (frame: Record<string, unknown>): boolean =>
    frame.method === method && typeof frame.id === 'string' && frame.id.startsWith('b-');

/** The stdout frames of a peer from line `from` on (every line of the bridge is one frame). */
export const framesSince = (peer: RawPeer, from = 0): Record<string, unknown>[] =>
  peer.lines.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * The error response the bridge makes itself (docs/errors.md#errors-table): the code and the
 * message of the cause in the table, `data` with the cause and the detail.
 */
export function bridgeErrorResponse(
  id: string | number | null,
  cause: Cause,
  detail?: string,
  code?: number,
): Record<string, unknown> {
  const [tableCode, message] = WIRE_ERRORS[cause];
  return {
    jsonrpc: '2.0',
    id,
    error: { code: code ?? tableCode, message, data: detail === undefined ? { cause } : { cause, detail } },
  };
}

/**
 * `handshake` with a longer wait for the first answer: a loaded machine may take more than 10 s to
 * start Node twice (the bridge, then its upstream).
 */
export async function handshakeWithin(
  peer: RawPeer,
  timeoutMs: number,
  capabilities: object = VSCODE_CAPABILITIES,
): Promise<Record<string, unknown>> {
  peer.send(initializeRequest(1, capabilities));
  const response = await peer.nextFrame((f) => f.id === 1, timeoutMs);
  peer.send(note('notifications/initialized'));
  return response;
}

let upstreamBarriers = 0;
/**
 * A sentinel on the pipe to the upstream: a `tools/call` of a tool no upstream has, awaited until
 * the tap shows that the upstream got it and the client got its answer. The bridge writes to the
 * upstream in order, so every frame it wrote to the upstream before (a listen stream that must
 * not open, say) is in `upstreamFrames(peer, '>')` by then. Needs a `tapped` upstream.
 */
export async function upstreamBarrier(peer: RawPeer, timeoutMs = 10_000): Promise<void> {
  const id = `upstream-barrier-${++upstreamBarriers}`;
  peer.send(req(id, 'tools/call', { name: id, arguments: {} }));
  await peer.nextFrame((frame) => frame.id === id, timeoutMs);
  await untilUpstream(
    peer,
    '>',
    (frame) => (frame.params as { name?: unknown } | undefined)?.name === id,
    timeoutMs,
  );
}
