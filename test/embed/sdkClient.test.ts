/**
 * The real `@modelcontextprotocol/sdk` 1.x Client (the 2025-11-25 family of VS Code) through the
 * embedded fixture server: the legacy path of embedded mode end to end (docs/embedded.md#embedded-selection).
 * Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';

const EMBEDDED = fileURLToPath(new URL('../../dist/test/fixtures/embeddedServer.js', import.meta.url));

const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

async function connect(): Promise<Client> {
  const client = new Client(
    { name: 'sdk-1x-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  clients.push(client);
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EMBEDDED], stderr: 'ignore' }),
  );
  return client;
}

const textOf = (result: unknown): string | undefined =>
  (result as { content?: { type: string; text?: string }[] }).content?.find((block) => block.type === 'text')
    ?.text;

describe('the 1.x SDK client through the embedded server', () => {
  it('initializes on the legacy path and lists and calls the tools', async () => {
    const client = await connect();
    expect(client.getServerVersion()).toEqual({ name: 'bridge-fixture-server', version: '0.0.0' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'add', 'ask_form']));
    expect(textOf(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }))).toBe('5');
  });

  it('answers the form of a tool', async () => {
    const client = await connect();
    const messages: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      messages.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada', age: 36 } };
    });
    const result = await client.callTool({ name: 'ask_form', arguments: {} });
    expect(messages).toEqual(['Tell us about you.']);
    expect(textOf(result)).toBe('form: accept {"name":"Ada","age":36}');
  });

  it('gets the list change of a tool that adds a tool, and the new tool is listed', async () => {
    const client = await connect();
    let changes = 0;
    let resolveChange: () => void = () => undefined;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
      // No catch-up comes first: the client listed nothing before the acknowledgment. The
      // bridge sends the listen request before the call, so the server has the stream by then.
      if (changes >= 1) resolveChange();
    });
    const changed = new Promise<void>((resolve) => (resolveChange = resolve));
    expect(textOf(await client.callTool({ name: 'add_tool', arguments: {} }))).toMatch(/^added added_\d+$/);
    await changed;
    const { tools } = await client.listTools();
    expect(tools.some((tool) => tool.name.startsWith('added_'))).toBe(true);
  });
});
