/**
 * The request lines of the raw client, for both eras. A legacy client speaks 2025-11-25 after an
 * `initialize`; a modern client sends 2026-07-28 frames with the `_meta` envelope on every request.
 * Lines are built from prepared JSON pieces so that building them costs the client little.
 */
import type { Frame } from './rawClient.js';

export type Era = 'legacy' | 'modern';

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';
export const CLIENT_INFO = { name: 'bench-client', version: '1.0.0' };
export const CLIENT_CAPABILITIES = { elicitation: { form: {} } };

const MODERN_META = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': CLIENT_INFO,
  'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES,
});

/** One request line; `paramsJson` is the JSON of the params without `_meta` (an object text). */
export function requestLine(era: Era, id: number | string, method: string, paramsJson = '{}'): string {
  let params = paramsJson;
  if (era === 'modern') {
    params =
      paramsJson === '{}' ? `{"_meta":${MODERN_META}}` : `${paramsJson.slice(0, -1)},"_meta":${MODERN_META}}`;
  }
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"${method}","params":${params}}`;
}

/** `tools/call` of `name` with the given arguments (JSON text of an object). */
export const callLine = (era: Era, id: number, name: string, argsJson: string): string =>
  requestLine(era, id, 'tools/call', `{"name":"${name}","arguments":${argsJson}}`);

/** The `echo` call of request `i`: its text names the request, so a wrong answer shows. */
export const echoLine = (era: Era, id: number): string => callLine(era, id, 'echo', `{"text":"m${id}"}`);

export const initializeLine = (id: number | string): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: LEGACY_VERSION, capabilities: CLIENT_CAPABILITIES, clientInfo: CLIENT_INFO },
  });

export const INITIALIZED_LINE = '{"jsonrpc":"2.0","method":"notifications/initialized"}';

/** The text of the first content block of a tools/call result, if any. */
export function resultText(frame: Frame): string | undefined {
  const result = frame['result'] as { content?: Array<{ text?: unknown }> } | undefined;
  const text = result?.content?.[0]?.text;
  return typeof text === 'string' ? text : undefined;
}

/** A check of an answer: true when it is the right one. */
export type Check = (frame: Frame, id: number) => boolean;

export const echoCheck: Check = (frame, id) => resultText(frame) === `m${id}`;
