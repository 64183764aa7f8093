/**
 * No start-up churn over HTTP (docs/notifications.md#notifications-first-list):
 * an SDK 1.x client of `mcp-bridge serve` that lists everything right after
 * `notifications/initialized` gets no list change at start, and a change of the tools made after
 * the lists still reaches it. The upstream is the fixture server over stdio, whose listen stream
 * is acknowledged 1 s late (`--listen-ack-delay`), so the lists reach the bridge before the
 * acknowledgment, as with a busy server. Needs the build (`npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE, GENERIC_BRIDGE } from '../helpers/bridgeProcess.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { WAIT_MS, connectClient, listeningUrl } from './serveSupport.js';

afterAll(killAllPeers);

const TOOLS = 'notifications/tools/list_changed';
const LATE_ACK = 'bridge-fixture-server: acknowledges a listen stream 1000 ms late';

describe('list changes at the start of a session of serve', () => {
  it('a client that lists everything right after notifications/initialized gets no list change at start, and a later change of the tools is notified', async () => {
    // real timer: the late acknowledgment is the subject; the lists wait for it (at most 2 s).
    const peer = spawnPeer(process.execPath, [
      GENERIC_BRIDGE,
      'serve',
      '--',
      process.execPath,
      FIXTURE,
      '--listen-ack-delay',
      '1000',
    ]);
    const url = await listeningUrl(peer);
    const notes: string[] = [];
    // connect() sends notifications/initialized; the lists go out right after it, as VS Code does.
    const { client, transport } = await connectClient(url, {}, (c) => {
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
    // The sentinel: the fixture's line right before its late acknowledgment. A list change of the
    // start would come at that acknowledgment, before the change of add_tool (one upstream pipe,
    // one GET stream of the session).
    await waitFor(() => peer.stderr.includes(LATE_ACK), {
      what: 'the late acknowledgment',
      timeoutMs: WAIT_MS,
    });
    await client.callTool({ name: 'add_tool', arguments: {} });
    await waitFor(() => notes.includes(TOOLS), { what: 'the list change of add_tool', timeoutMs: WAIT_MS });
    expect(notes.filter((method) => method.endsWith('/list_changed'))).toEqual([TOOLS]);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('added_1');
    await transport.terminateSession();
    await client.close();
  });
});
