/**
 * No start-up churn over HTTP (docs/notifications.md#notifications-first-list, issue 34's
 * acceptance): an SDK 1.x client of `mcp-bridge serve` that lists everything right after
 * `notifications/initialized` gets no list change at start, and a change of the tools made after
 * the lists still reaches it. The upstream is the fixture server over stdio, with its listen
 * stream. Needs the build (`npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { WAIT_MS, connectClient, startServe } from './serveSupport.js';

afterAll(killAllPeers);

describe('list changes at the start of a session of serve', () => {
  it('a client that lists everything right after notifications/initialized gets no list change at start, and a later change of the tools is notified', async () => {
    const serve = await startServe();
    const notes: string[] = [];
    // connect() sends notifications/initialized; the lists go out right after it, as VS Code does.
    const { client, transport } = await connectClient(serve.url, {}, (c) => {
      c.fallbackNotificationHandler = (note) => {
        notes.push(note.method);
        return Promise.resolve();
      };
    });
    const [tools, prompts, resources, templates] = await Promise.all([
      client.listTools(),
      client.listPrompts(),
      client.listResources(),
      client.listResourceTemplates(),
    ]);
    expect(tools.tools.map((tool) => tool.name)).toContain('add_tool');
    expect([
      prompts.prompts.length > 0,
      resources.resources.length > 0,
      Array.isArray(templates.resourceTemplates),
    ]).toEqual([true, true, true]);
    // add_tool changes the tools after the lists: its list change is the sentinel, and the only one.
    await client.callTool({ name: 'add_tool', arguments: {} });
    await waitFor(() => notes.includes('notifications/tools/list_changed'), {
      what: 'the list change of add_tool',
      timeoutMs: WAIT_MS,
    });
    expect(notes.filter((method) => method.endsWith('/list_changed'))).toEqual([
      'notifications/tools/list_changed',
    ]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('added_1');
    await transport.terminateSession();
    await client.close();
  });
});
