/**
 * Starts the built `mcp-bridge-vscode` in front of an upstream, for transcript and process tests
 * that speak raw JSON-RPC lines to the real executable.
 */
import { fileURLToPath } from 'node:url';
import { spawnPeer } from './rawPeer.js';
import type { RawPeer } from './rawPeer.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const BRIDGE = `${root}dist/src/cli/main.js`;
export const FIXTURE = `${root}dist/test/fixtures/fixtureServer.js`;
export const SCRIPTED = `${root}dist/test/fixtures/scriptedUpstream.js`;

/** The `initialize` of VS Code 1.140 (reference-behaviors.md §9.1). */
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
  const response = await peer.nextFrame((f) => f.id === 1, 10_000);
  peer.send(note('notifications/initialized'));
  return response;
}

/** Every stderr line of the bridge has the tag (reference-behaviors.md §3.12). */
export const untaggedLines = (stderr: readonly string[]): string[] =>
  stderr.filter(
    (line) => !line.startsWith('mcp-bridge-vscode: ') && !line.startsWith('bridge-fixture-server: '),
  );
