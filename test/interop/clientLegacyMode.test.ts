/**
 * Interop (docs/testing.md#testing-ci): the `@modelcontextprotocol/client` 2.x `Client` in its legacy mode
 * (`versionNegotiation: { mode: 'legacy' }`, the plain 2025-11-25 `initialize` handshake; see
 * `ClientOptions.versionNegotiation` in its typings) through the built bridge in front of the
 * 2026-07-28-only fixture: a list change and a form. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BRIDGE, FIXTURE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { waitFor } from '../helpers/waitFor.js';
import { bridgeTransport, dropAcknowledgedListen, firstText } from './interopSupport.js';

describe.each([
  { name: 'mcp-bridge-vscode', bin: BRIDGE },
  { name: 'mcp-bridge', bin: GENERIC_BRIDGE },
])('the @modelcontextprotocol/client 2.x Client in legacy mode through $name', ({ bin }) => {
  let client: Client;
  const toolChanges: unknown[] = [];
  const forms: string[] = [];

  // Each test has its own bridge and fixture: every test passes alone and in any order.
  beforeEach(async () => {
    toolChanges.length = 0;
    forms.length = 0;
    client = new Client(
      { name: 'interop-client-2x', version: '2.0.0' },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
    );
    client.setNotificationHandler('notifications/tools/list_changed', (notification) => {
      toolChanges.push(notification);
    });
    client.setRequestHandler('elicitation/create', (request) => {
      forms.push(request.params.message);
      return { action: 'accept', content: { name: 'Ada', age: 36 } };
    });
    await client.connect(
      new StdioClientTransport(
        bridgeTransport({
          command: process.execPath,
          args: [bin, '--', process.execPath, FIXTURE],
          stderr: 'ignore',
        }),
      ),
    );
  });

  afterEach(async () => {
    await client.close();
  });

  it('negotiates 2025-11-25 on the legacy path, and sees the fixture through the bridge', () => {
    expect(client.getProtocolEra()).toBe('legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(client.getServerVersion()).toMatchObject({ name: 'bridge-fixture-server' });
    expect(client.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
  });

  it('gets an unsolicited notifications/tools/list_changed after add_tool', async () => {
    // No catch-up at the first acknowledgment: the client had listed no tools.
    await dropAcknowledgedListen(() => client.callTool({ name: 'drop_listen', arguments: {} }));
    expect(toolChanges).toEqual([]);
    // The catch-up of the next stream, after the gap, lists every list.
    await waitFor(() => toolChanges.length === 1, { what: 'the list change of the catch-up after the gap' });
    expect(firstText(await client.callTool({ name: 'add_tool', arguments: {} }))).toBe('added added_1');
    await waitFor(() => toolChanges.length === 2, { what: 'the list change of add_tool' });
    expect(toolChanges[1]).toMatchObject({ method: 'notifications/tools/list_changed' });
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('added_1');
  });

  it('answers the form of ask_form, and the tool gets the answer', async () => {
    expect(firstText(await client.callTool({ name: 'ask_form', arguments: {} }))).toBe(
      'form: accept {"name":"Ada","age":36}',
    );
    expect(forms).toEqual(['Tell us about you.']);
  });
});
