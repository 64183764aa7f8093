/**
 * Shared helpers of the process tests of the URL form (`mcp-bridge-vscode [options] <url>`): the
 * bridge is the built executable, the upstream is an in-process HTTP(S) server.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BRIDGE, initializeRequest, note } from '../helpers/bridgeProcess.js';
import { exchange, responseTo, spawnPeer } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import { WAIT_BOUND_MS } from '../helpers/waitFor.js';

export { makeTestCerts } from '../edges/http/support.js';
export type { TestCerts } from '../edges/http/support.js';

const PROXY_VARIABLES = /^(https?_proxy|all_proxy|no_proxy)$/i;

/** The environment of the bridge: this process's, without proxy settings, plus `extra`. */
export function bridgeEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!PROXY_VARIABLES.test(name)) env[name] = value;
  return { ...env, ...extra };
}

/** `mcp-bridge-vscode [args] <url>`; the URL is an argv item, never shell text. */
export function startUrlBridge(url: string, args: readonly string[] = [], env?: NodeJS.ProcessEnv): RawPeer {
  return spawnPeer(process.execPath, [BRIDGE, ...args, url], env ?? bridgeEnv());
}

/**
 * A start and the first request of a bridge take a while on a loaded machine (the executable loads
 * its modules, then asks the upstream); the waits of these tests allow that.
 */
export const WAIT_MS = WAIT_BOUND_MS;

/** Initializes with the capabilities of VS Code and sends notifications/initialized. */
export async function handshake(peer: RawPeer): Promise<Frame> {
  peer.send(initializeRequest(1));
  const response = await peer.nextFrame(responseTo(1), WAIT_MS);
  peer.send(note('notifications/initialized'));
  return response;
}

/**
 * As handshake, with a `tools/list` before `notifications/initialized`: the first acknowledgment
 * of the listen stream then sends `notifications/tools/list_changed` for that list (README.md
 * "List changes and subscriptions"), the sign for a test that the listener runs.
 */
export async function handshakeWithToolsList(peer: RawPeer): Promise<Frame> {
  peer.send(initializeRequest(1));
  const response = await peer.nextFrame(responseTo(1), WAIT_MS);
  await exchange(peer, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, WAIT_MS);
  peer.send(note('notifications/initialized'));
  return response;
}

let nextId = 100;

/** Sends a request with a fresh id and resolves with its response. */
export function call(peer: RawPeer, method: string, params?: object, timeoutMs = WAIT_MS): Promise<Frame> {
  const id = nextId++;
  const frame =
    params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
  return exchange(peer, frame, timeoutMs);
}

/** `tools/call` of `name` with `args`. */
export const callTool = (
  peer: RawPeer,
  name: string,
  args: object = {},
  timeoutMs?: number,
): Promise<Frame> => call(peer, 'tools/call', { name, arguments: args }, timeoutMs);

/** The text of the first content block of a tool result. */
export function firstText(frame: Frame): string {
  const result = frame['result'] as { content?: Array<{ text?: unknown }> } | undefined;
  const value = result?.content?.[0]?.text;
  return typeof value === 'string' ? value : '';
}

/** Ends stdin and resolves with the exit code (the bridge must stop on its own). */
export async function endAndExit(peer: RawPeer): Promise<number | null> {
  peer.closeStdin();
  return (await peer.exit).code;
}

/** Writes a file in `dir` and returns its path. */
export function writeIn(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** Every stdout and stderr line that contains one of the secrets (should be none). */
export function leaks(peer: RawPeer, secrets: readonly string[]): string[] {
  return [...peer.lines, ...peer.stderr].filter((line) => secrets.some((secret) => line.includes(secret)));
}
