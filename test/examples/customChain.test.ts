/**
 * examples/custom-chain.ts runs in the suite: the standard chain with a
 * tool allow-list and a tracing tap, in front of the fixture server, driven by the SDK 1.x Client.
 * Needs `npm run build` (it runs dist/examples/custom-chain.js).
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { FIXTURE } from '../helpers/bridgeProcess.js';

const EXAMPLE = fileURLToPath(new URL('../../dist/examples/custom-chain.js', import.meta.url));

const firstText = (result: unknown): string =>
  (result as { content: { type: string; text?: string }[] }).content.find((block) => block.type === 'text')
    ?.text ?? '';

describe('examples/custom-chain.ts with the 1.x Client', () => {
  const sent: JSONRPCMessage[] = [];
  const received: JSONRPCMessage[] = [];
  let stderr = '';
  let client: Client;
  let transport: StdioClientTransport;

  beforeAll(async () => {
    transport = new StdioClientTransport({
      command: process.execPath,
      args: [EXAMPLE, '--', process.execPath, FIXTURE],
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    // Record every message in both directions, next to the client's own handling.
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage) => {
      sent.push(message);
      return send(message);
    };
    client = new Client({ name: 'custom-chain-test', version: '1.0.0' });
    await client.connect(transport);
    const onmessage = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      received.push(message);
      onmessage?.(message);
    };
  });

  afterAll(async () => {
    await client.close();
  });

  it('lists only the allowed tools, and the allowed tools work through it', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add', 'echo']);
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'hello' } }))).toBe('hello');
    expect(firstText(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
  });

  it('refuses a tool outside the list with a clear error', async () => {
    const failure = await client.callTool({ name: 'bare_array', arguments: { values: [1] } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(McpError);
    expect((failure as McpError).code).toBe(-32602);
    expect((failure as McpError).message).toBe(
      "MCP error -32602: The tool 'bare_array' is not in the allow-list of this bridge (echo, add).",
    );
  });

  it('the tap sees every frame in both directions', async () => {
    // Exchanges of its own (the file passes in any order); stderr is a pipe of its own, so wait
    // until it has a line per frame.
    await client.listTools();
    await client.callTool({ name: 'echo', arguments: { text: 'traced' } });
    await client.ping();
    const traced = (): string[] => stderr.split('\n').filter((line) => line.startsWith('trace: '));
    // The initialize response came before the recording started: one more outbound frame.
    await waitFor(() => traced().length >= sent.length + received.length + 1, {
      what: 'a trace line for each frame',
    });
    const describe = (message: JSONRPCMessage): string => {
      const kind = 'method' in message ? ('id' in message ? 'request' : 'notification') : 'response';
      return `${kind} ${'method' in message ? message.method : '-'} ${'id' in message ? String(message.id) : '-'}`;
    };
    const inbound = traced()
      .filter((line) => line.startsWith('trace: in '))
      .map((line) => line.slice(10));
    const outbound = traced()
      .filter((line) => line.startsWith('trace: out '))
      .map((line) => line.slice(11));
    expect(inbound).toEqual(sent.map(describe));
    // The initialize response came before the recording started: it is the first traced frame.
    expect(outbound[0]).toBe('response - 0');
    expect(outbound.slice(1)).toEqual(received.map(describe));
    // At least initialize, initialized, tools/list, tools/call and ping, and their three responses.
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(received.length).toBeGreaterThanOrEqual(3);
  });
});
