/**
 * What the interop tests of the SDK clients share (test/interop): the text of a tool result, the
 * drop of an acknowledged listen stream of the fixture server, and the transport's parameters of
 * the `--shared` run (docs/testing.md#testing-shared-matrix).
 */
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { sharedTransport } from '../helpers/sharedMatrix.js';

/** A StdioClientTransport's parameters; in the `--shared` run the built bridge starts as a shim. */
export const bridgeTransport = <T extends { command: string; args?: string[]; env?: Record<string, string> }>(
  params: T,
): T => sharedTransport(params, getDefaultEnvironment());

/** The text of the first text block of a tool result ('' without one). */
export const firstText = (result: unknown): string =>
  (result as { content: { type: string; text?: string }[] }).content.find((block) => block.type === 'text')
    ?.text ?? '';

/**
 * Calls drop_listen until it ends a listen stream (README.md "List changes and subscriptions"):
 * the fixture writes its result after the acknowledgment of that stream, so every catch-up of
 * that acknowledgment reached the client before the result. Each retry waits for the answer of
 * the one before; the acknowledgment of a new stream comes within a few of them.
 */
export async function dropAcknowledgedListen(
  callTool: () => Promise<unknown>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (firstText(await callTool()) !== 'ended 1 listen streams') {
    if (Date.now() > deadline) throw new Error(`no acknowledged listen stream within ${timeoutMs} ms`);
  }
}
