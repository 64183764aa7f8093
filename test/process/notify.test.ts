/**
 * Notifications and subscriptions through the built bridge (docs/notifications.md#notifications-listener,
 * §2.5, §9.5, §9.10 items 13–16): raw JSON-RPC transcripts of a client with the capabilities of
 * VS Code in front of the 2026-07-28 fixture server, with a tap that shows what the upstream got.
 * Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { EVERY_CAPABILITY } from '../helpers/capabilities.js';
import {
  FIXTURE,
  framesSince,
  initializeRequest,
  miniUpstream,
  note,
  req,
  startBridge,
  tapped,
  untilUpstream,
  upstreamBarrier,
  upstreamFrames,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import { findModernLeaks, validateLegacyFrame } from '../helpers/schemas.js';

const TOOLS = 'notifications/tools/list_changed';
const PROMPTS = 'notifications/prompts/list_changed';
const RESOURCES = 'notifications/resources/list_changed';
const UPDATED = 'notifications/resources/updated';
const NOTES = 'file:///fixture/notes.txt';
const README = 'file:///fixture/readme.txt';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const TOGGLE_RUNS = 1000;
/** Calls written at once: below the in-flight limit of the bridge (256). */
const TOGGLE_BATCH = 200;
const LISTS = { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true };

// Each test has its own bridge: every test passes alone and in any order.
afterEach(killAllPeers);

const paramsOf = (frame: Frame): Record<string, unknown> => (frame.params ?? {}) as Record<string, unknown>;
const textOf = (frame: Frame): string => (frame.result as { content: { text: string }[] }).content[0]!.text;
const isListen = (frame: Frame): boolean => frame.method === 'subscriptions/listen';
/** The upstream wrote the acknowledgment of a listen stream: its later events come after it. */
const isAck = (frame: Frame): boolean => frame.method === 'notifications/subscriptions/acknowledged';
const listenFilterOf = (frame: Frame): unknown => paramsOf(frame).notifications;

let pings = 0;
/** A ping and its response: every frame the bridge made before it is written by then. */
async function barrier(peer: RawPeer): Promise<string> {
  const id = `barrier-${++pings}`;
  peer.send(req(id, 'ping'));
  await peer.nextFrame(responseTo(id));
  return id;
}

const EVENTS: readonly unknown[] = [TOOLS, PROMPTS, RESOURCES, UPDATED];
/** Resolves with the first `count` list changes and updates from line `from` on, once written. */
async function eventsSince(peer: RawPeer, from: number, count: number, timeoutMs = 10_000): Promise<Frame[]> {
  const events = (): Frame[] => framesSince(peer, from).filter((frame) => EVENTS.includes(frame.method));
  await waitFor(() => events().length >= count, { timeoutMs, what: `${count} events` });
  return events().slice(0, count);
}

/** Sends a request and resolves with its response. */
function request(
  peer: RawPeer,
  id: string | number,
  method: string,
  params?: object,
  timeoutMs?: number,
): Promise<Frame> {
  peer.send(req(id, method, params));
  return peer.nextFrame(responseTo(id), timeoutMs);
}
const callTool = (peer: RawPeer, id: string | number, name: string, args: object = {}): Promise<Frame> =>
  request(peer, id, 'tools/call', { name, arguments: args });

/** The methods of the notifications the bridge wrote from line `from` on. */
const notificationsSince = (peer: RawPeer, from: number): string[] =>
  framesSince(peer, from)
    .filter((frame) => !('id' in frame))
    .map((frame) => String(frame.method));

/** Initializes and sends notifications/initialized; resolves with the capabilities of the result. */
async function connect(peer: RawPeer): Promise<Record<string, unknown>> {
  // Starting three Node processes can take long on a loaded machine.
  const response = await request(peer, 'init', 'initialize', paramsOf(initializeRequest() as Frame), 30_000);
  peer.send(note('notifications/initialized'));
  return (response.result as { capabilities: Record<string, unknown> }).capabilities;
}

/** A bridge in front of the tapped fixture, initialized, once the upstream acknowledged its listen stream. */
async function listening(): Promise<RawPeer> {
  const peer = startBridge({ upstream: tapped() });
  await connect(peer);
  await untilUpstream(peer, '<', isAck);
  return peer;
}

/** A bridge in front of the tapped fixture that answered `initialize`, before `notifications/initialized`. */
async function initialized(): Promise<RawPeer> {
  const peer = startBridge({ upstream: tapped() });
  await request(peer, 'init', 'initialize', paramsOf(initializeRequest() as Frame), 30_000);
  return peer;
}

/** Every frame is valid for 2025-11-25 and has no 2026-07-28 member; `except` ids are left out. */
function expectValidTranscript(peer: RawPeer, except: readonly unknown[] = []): void {
  const problems = framesSince(peer)
    .filter((frame) => !except.includes(frame.id))
    .flatMap((frame) => [...validateLegacyFrame(frame, 'toClient'), ...findModernLeaks(frame)]);
  expect(problems).toEqual([]);
}

describe('the listener of a connection to the fixture server with every list and subscriptions', () => {
  it('notifications/initialized before the initialize result starts no listen stream', async () => {
    const peer = startBridge({ upstream: tapped() });
    peer.send(note('notifications/initialized'));
    const response = await request(peer, 1, 'initialize', paramsOf(initializeRequest() as Frame), 30_000);
    expect((response.result as { capabilities: unknown }).capabilities).toEqual(EVERY_CAPABILITY);
    // Sentinels on both pipes: a listen stream would be written to the upstream before the
    // upstream barrier, a list change to the client before the answer of the ping.
    await upstreamBarrier(peer);
    await barrier(peer);
    expect(upstreamFrames(peer, '>').filter(isListen)).toEqual([]);
    expect(notificationsSince(peer, 0)).toEqual([]);
  });

  it('logging/setLevel before notifications/initialized is accepted', async () => {
    const peer = await initialized();
    expect(await request(peer, 2, 'logging/setLevel', { level: 'debug' })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
  });

  it('notifications/initialized after the initialize result opens a listen stream for the declared lists, with the log level', async () => {
    const peer = await initialized();
    await request(peer, 2, 'logging/setLevel', { level: 'debug' });
    peer.send(note('notifications/initialized'));
    const [listen] = await untilUpstream(peer, '>', isListen);
    expect(listenFilterOf(listen!)).toEqual({
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
    });
    expect(paramsOf(listen!)._meta).toMatchObject({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      [LOG_LEVEL]: 'debug',
    });
  });

  it('its acknowledgment gives no list change to a client that fetched no list: the first list change is one of the upstream', async () => {
    const peer = await listening();
    // The upstream writes this change after the acknowledgment, on the same stream: a catch-up
    // of the acknowledgment would reach the client before it.
    await callTool(peer, 3, 'toggle', { enabled: false, target: 'prompt' });
    expect(notificationsSince(peer, 0)).toEqual([PROMPTS]);
  });

  it('log messages have exactly level, logger and data, reach the client at the level of logging/setLevel, and come before the result', async () => {
    const peer = await listening();
    await request(peer, 2, 'logging/setLevel', { level: 'debug' });
    const from = peer.lines.length;
    const debug = await callTool(peer, 10, 'log');
    const message = (level: string) =>
      note('notifications/message', { level, logger: 'fixture', data: `a message at the level ${level}` });
    expect(framesSince(peer, from)).toEqual([
      message('debug'),
      message('info'),
      message('warning'),
      message('error'),
      debug,
    ]);
    await request(peer, 11, 'logging/setLevel', { level: 'warning' });
    const next = peer.lines.length;
    const warning = await callTool(peer, 12, 'log');
    expect(framesSince(peer, next)).toEqual([message('warning'), message('error'), warning]);
  });

  it('each later upstream request carries the level of the last logging/setLevel as io.modelcontextprotocol/logLevel', async () => {
    const peer = await listening();
    await request(peer, 2, 'logging/setLevel', { level: 'debug' });
    await request(peer, 11, 'logging/setLevel', { level: 'warning' });
    const echoed = JSON.parse(textOf(await callTool(peer, 13, 'meta_echo'))) as Record<string, unknown>;
    expect(echoed[LOG_LEVEL]).toBe('warning');
  });

  it(`a tool that changes the tool list: each list change reaches the client in the order the upstream wrote it relative to the results, ${TOGGLE_RUNS} runs`, async () => {
    // The calls go out in batches without waiting, so the upstream interleaves changes and
    // results as it likes; the client must see exactly that order. A traceparent per call maps
    // the upstream id of each result to the call.
    const peer = await listening();
    const callOfTrace = new Map<string, string>();
    const traceOf = (call: string): string => {
      const trace = `00-${(callOfTrace.size + 1).toString(16).padStart(32, '0')}-${'2'.repeat(16)}-01`;
      callOfTrace.set(trace, call);
      return trace;
    };
    const from = peer.lines.length;
    await request(peer, 'toggle-start', 'tools/list', { _meta: { traceparent: traceOf('toggle-start') } });
    for (let start = 0; start < TOGGLE_RUNS; start += TOGGLE_BATCH) {
      const calls = Array.from({ length: TOGGLE_BATCH }, (_, i) => `toggle-${start + i}`).map((id, i) =>
        // Disable, enable, disable…
        req(id, 'tools/call', {
          name: 'toggle',
          arguments: { enabled: (start + i) % 2 === 1 },
          _meta: { traceparent: traceOf(id) },
        }),
      );
      peer.child.stdin!.write(calls.map((call) => `${JSON.stringify(call)}\n`).join(''));
      await peer.nextFrame(responseTo(`toggle-${start + TOGGLE_BATCH - 1}`));
    }
    const last = `toggle-${TOGGLE_RUNS - 1}`;
    // The upstream id of each call, from the requests the upstream got.
    const traceparent = (frame: Frame): unknown =>
      (paramsOf(frame)._meta as Record<string, unknown> | undefined)?.traceparent;
    const sent = await untilUpstream(
      peer,
      '>',
      (frame) => callOfTrace.get(String(traceparent(frame))) === last,
    );
    const callOf = new Map(
      upstreamFrames(peer, '>').flatMap((frame) => {
        const call = callOfTrace.get(String(traceparent(frame)));
        return call === undefined ? [] : [[frame.id, call] as const];
      }),
    );
    await untilUpstream(peer, '<', (frame) => frame.id === sent[0]!.id && 'result' in frame);
    // What the upstream wrote after the result of toggle-start, and what the client got.
    const upstream = upstreamFrames(peer, '<');
    const upstreamOrder = upstream
      .slice(upstream.findIndex((frame) => callOf.get(frame.id) === 'toggle-start' && 'result' in frame) + 1)
      .flatMap((frame) =>
        frame.method === TOOLS ? ['change'] : 'result' in frame ? [callOf.get(frame.id) ?? '?'] : [],
      );
    const client = framesSince(peer, from);
    const clientOrder = client
      .slice(client.findIndex((frame) => frame.id === 'toggle-start') + 1)
      .flatMap((frame) =>
        frame.method === TOOLS
          ? ['change']
          : String(frame.id).startsWith('toggle-')
            ? [String(frame.id)]
            : [],
      );
    expect(clientOrder.slice(0, clientOrder.indexOf(last) + 1)).toEqual(
      upstreamOrder.slice(0, upstreamOrder.indexOf(last) + 1),
    );
    expect(clientOrder.filter((kind) => kind.startsWith('toggle-'))).toHaveLength(TOGGLE_RUNS);
    // Every toggle was a real change: one list change per call.
    expect(clientOrder.filter((kind) => kind === 'change')).toHaveLength(TOGGLE_RUNS);
    const { tools } = (await request(peer, 14, 'tools/list')).result as { tools: { name: string }[] };
    expect(tools.map((tool) => tool.name)).toContain('toggled');
    // A toggle to the current state changes nothing, so no list change comes.
    const noop = peer.lines.length;
    await callTool(peer, 15, 'toggle', { enabled: true });
    // The upstream writes a list change before the result of its call; the ping is a sentinel.
    await barrier(peer);
    expect(notificationsSince(peer, noop)).toEqual([]);
  });

  it('resources/subscribe: {} comes first, then each update of the URI before the result of touch, and none after resources/unsubscribe', async () => {
    const peer = await listening();
    const from = peer.lines.length;
    expect((await request(peer, 20, 'resources/subscribe', { uri: NOTES })).result).toEqual({});
    const [listen] = await untilUpstream(
      peer,
      '>',
      (frame) => isListen(frame) && 'resourceSubscriptions' in (listenFilterOf(frame) as object),
    );
    expect(listenFilterOf(listen!)).toEqual({ ...LISTS, resourceSubscriptions: [NOTES] });
    // The old stream is cancelled once the new one is acknowledged and {} is written.
    const [first] = upstreamFrames(peer, '>').filter(isListen);
    const [replaced] = await untilUpstream(
      peer,
      '>',
      (frame) => frame.method === 'notifications/cancelled' && paramsOf(frame).requestId === first!.id,
    );
    expect(paramsOf(replaced!).reason).toBe('the bridge replaced the listen stream');
    const touched = await callTool(peer, 21, 'touch', { uri: NOTES });
    // A change of the subscriptions alone replays nothing.
    expect(framesSince(peer, from).slice(1)).toEqual([note(UPDATED, { uri: NOTES }), touched]);
    expect((await request(peer, 22, 'resources/unsubscribe', { uri: NOTES })).result).toEqual({});
    const after = peer.lines.length;
    // An update of the touch comes before its result; the ping is a sentinel.
    await callTool(peer, 23, 'touch', { uri: NOTES });
    await barrier(peer);
    expect(notificationsSince(peer, after)).toEqual([]);
  });

  it('the response of resources/subscribe comes before the first update of its URI', async () => {
    const peer = await listening();
    const from = peer.lines.length;
    // The touch follows the subscribe at once: any update must come after the response.
    peer.child.stdin!.write(
      `${JSON.stringify(req(30, 'resources/subscribe', { uri: README }))}\n` +
        `${JSON.stringify(req(31, 'tools/call', { name: 'touch', arguments: { uri: README } }))}\n`,
    );
    await peer.nextFrame(responseTo(30));
    await peer.nextFrame(responseTo(31));
    await callTool(peer, 32, 'touch', { uri: README });
    const frames = framesSince(peer, from);
    const response = frames.findIndex((frame) => frame.id === 30);
    const firstUpdate = frames.findIndex((frame) => frame.method === UPDATED);
    expect(firstUpdate).toBeGreaterThan(response);
    expect((await request(peer, 33, 'resources/unsubscribe', { uri: README })).result).toEqual({});
  });

  it('two resources/subscribe at the same time both get {}, and both URIs get their updates', async () => {
    const peer = await listening();
    peer.child.stdin!.write(
      `${JSON.stringify(req(40, 'resources/subscribe', { uri: NOTES }))}\n` +
        `${JSON.stringify(req(41, 'resources/subscribe', { uri: README }))}\n`,
    );
    expect((await peer.nextFrame(responseTo(40))).result).toEqual({});
    expect((await peer.nextFrame(responseTo(41))).result).toEqual({});
    // The second change opens a stream with the full URI set.
    const both = { ...LISTS, resourceSubscriptions: [NOTES, README] };
    await untilUpstream(
      peer,
      '>',
      (frame) => isListen(frame) && JSON.stringify(listenFilterOf(frame)) === JSON.stringify(both),
    );
    const listens = upstreamFrames(peer, '>').filter(isListen).slice(-2);
    expect(listens.map(listenFilterOf)).toEqual([
      { ...LISTS, resourceSubscriptions: [NOTES] },
      { ...LISTS, resourceSubscriptions: [NOTES, README] },
    ]);
    const from = peer.lines.length;
    const notes = await callTool(peer, 42, 'touch', { uri: NOTES });
    const readme = await callTool(peer, 43, 'touch', { uri: README });
    expect(framesSince(peer, from)).toEqual([
      note(UPDATED, { uri: NOTES }),
      notes,
      note(UPDATED, { uri: README }),
      readme,
    ]);
  });

  it('resources/subscribe of a subscribed URI and resources/unsubscribe of an unknown URI get {} at once, and no new stream', async () => {
    const peer = await listening();
    expect((await request(peer, 40, 'resources/subscribe', { uri: NOTES })).result).toEqual({});
    const listens = upstreamFrames(peer, '>').filter(isListen).length;
    expect((await request(peer, 44, 'resources/subscribe', { uri: NOTES })).result).toEqual({});
    const unknown = 'file:///fixture/unknown.txt';
    expect((await request(peer, 45, 'resources/unsubscribe', { uri: unknown })).result).toEqual({});
    // A new stream would be written to the upstream before the {} and so before the sentinel.
    await upstreamBarrier(peer);
    expect(upstreamFrames(peer, '>').filter(isListen)).toHaveLength(listens);
  });

  it('after drop_listen the bridge opens a new stream with the current level, replays the lists and the URIs, and list changes arrive again', async () => {
    const peer = await listening();
    await request(peer, 11, 'logging/setLevel', { level: 'warning' });
    expect((await request(peer, 40, 'resources/subscribe', { uri: NOTES })).result).toEqual({});
    expect((await request(peer, 41, 'resources/subscribe', { uri: README })).result).toEqual({});
    const before = upstreamFrames(peer, '>').filter(isListen).at(-1)!.id as number;
    const from = peer.lines.length;
    expect(textOf(await callTool(peer, 50, 'drop_listen'))).toBe('ended 1 listen streams');
    expect(await eventsSince(peer, from, 5)).toEqual([
      note(TOOLS),
      note(PROMPTS),
      note(RESOURCES),
      note(UPDATED, { uri: NOTES }),
      note(UPDATED, { uri: README }),
    ]);
    const reopened = await untilUpstream(
      peer,
      '>',
      (frame) => isListen(frame) && (frame.id as number) > before,
    );
    expect(reopened).toHaveLength(1);
    expect(paramsOf(reopened[0]!)._meta).toMatchObject({ [LOG_LEVEL]: 'warning' });
    expect(peer.stderr.some((line) => line.includes('the upstream server ended the listen stream'))).toBe(
      true,
    );
    const added = await callTool(peer, 51, 'add_tool');
    expect(framesSince(peer, from).slice(-2)).toEqual([note(TOOLS), added]);
  });

  it('in a session of its own: no log message or frame content on the stderr of the bridge, no notifications/cancelled reaches the client, and every frame is valid for 2025-11-25 without a 2026-07-28 member', async () => {
    // Its own bridge (at debug, so that every line is checked): this test passes or fails alone.
    const own = startBridge({ upstream: tapped(), bridgeArgs: ['--log-level', 'debug'] });
    await connect(own);
    await untilUpstream(own, '<', isAck);
    await request(own, 'own-level', 'logging/setLevel', { level: 'debug' });
    await callTool(own, 'own-log', 'log');
    expect((await request(own, 'own-sub', 'resources/subscribe', { uri: NOTES })).result).toEqual({});
    await callTool(own, 'own-touch', 'touch', { uri: NOTES });
    const from = own.lines.length;
    expect(textOf(await callTool(own, 'own-drop', 'drop_listen'))).toBe('ended 1 listen streams');
    // The replay of the new stream: the lists, then the URI.
    await eventsSince(own, from, 4);
    await barrier(own);
    const lines = own.stderr.filter((line) => line.startsWith('mcp-bridge-vscode: '));
    expect(lines.length).toBeGreaterThan(0);
    expect(
      lines.filter(
        (line) =>
          line.includes('a message at the level') || line.includes('"jsonrpc"') || line.includes(NOTES),
      ),
    ).toEqual([]);
    expect(notificationsSince(own, 0)).toContain('notifications/message');
    expect(notificationsSince(own, 0)).not.toContain('notifications/cancelled');
    expectValidTranscript(own);
  });

  it('in a session of its own: a client that lists everything right after notifications/initialized gets no list change at start, and a later change of the tools is notified', async () => {
    // The fixture acknowledges the listen stream 1 s late, so the lists surely reach the bridge
    // before the acknowledgment, as they do from VS Code on a busy machine.
    const own = startBridge({ upstream: tapped([process.execPath, FIXTURE, '--listen-ack-delay', '1000']) });
    await request(own, 'own-init', 'initialize', paramsOf(initializeRequest() as Frame), 30_000);
    // As VS Code does: the lists go out with notifications/initialized, before the listen stream
    // is acknowledged; each waits for that acknowledgment (docs/notifications.md#notifications-first-list).
    own.send(note('notifications/initialized'));
    const lists = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];
    const answers = await Promise.all(lists.map((method) => request(own, `own-${method}`, method)));
    expect(answers.map((answer) => Object.keys(answer.result ?? {}))).toEqual([
      ['tools'],
      ['prompts'],
      ['resources'],
      ['resourceTemplates'],
    ]);
    // Once the acknowledgment is in and every frame it caused is written, no list change came.
    await untilUpstream(own, '<', isAck);
    await barrier(own);
    expect(notificationsSince(own, 0)).toEqual([]);
    // add_tool changes the tools after the lists: its list change is the only one.
    await callTool(own, 'own-add', 'add_tool');
    await eventsSince(own, 0, 1);
    await barrier(own);
    expect(notificationsSince(own, 0)).toEqual([TOOLS]);
    own.kill();
  });

  it('in a session of its own: a tools/list before notifications/initialized is answered after the 2 s wait for the acknowledgment, and gets one tools list change at the acknowledgment, none for prompts and resources', async () => {
    const own = startBridge({ upstream: tapped() });
    await request(own, 'own-init', 'initialize', paramsOf(initializeRequest() as Frame), 30_000);
    // real timer: without notifications/initialized no listen stream opens, so the list waits the
    // whole bound of firstAckWaitMs (2 s, which the CLI cannot set) before it goes upstream.
    expect((await request(own, 'own-tools', 'tools/list')).result).toHaveProperty('tools');
    own.send(note('notifications/initialized'));
    await untilUpstream(own, '<', isAck);
    // add_tool changes the tools after the acknowledgment: its list change comes second.
    await callTool(own, 'own-add', 'add_tool');
    expect(notificationsSince(own, 0)).toEqual([TOOLS, TOOLS]);
    own.kill();
  });

  it('in a session of its own: the end of stdin with an open listen stream ends the bridge with code 0 at once', async () => {
    const own = startBridge({ upstream: tapped() });
    await connect(own);
    await untilUpstream(own, '<', (frame) => frame.method === 'notifications/subscriptions/acknowledged');
    own.closeStdin();
    const started = Date.now();
    expect(await own.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(3_000);
  });
});

describe('the listener with other upstream capabilities', () => {
  /** A bridge in front of the tapped fixture with `flags`, initialized; resolves with the declared capabilities. */
  async function start(
    ...flags: string[]
  ): Promise<{ peer: RawPeer; capabilities: Record<string, unknown> }> {
    return startWith([], ...flags);
  }

  /** As start, with options of the bridge (`bridgeArgs`) too. */
  async function startWith(
    bridgeArgs: readonly string[],
    ...flags: string[]
  ): Promise<{ peer: RawPeer; capabilities: Record<string, unknown> }> {
    const peer = startBridge({
      upstream: tapped([process.execPath, FIXTURE, ...flags]),
      bridgeArgs: [...bridgeArgs],
    });
    return { peer, capabilities: await connect(peer) };
  }

  it('an upstream with the list changes of the tools only: the bridge declares and sends only those', async () => {
    const { peer, capabilities } = await start('--tools-list-changed-only');
    expect(capabilities).toMatchObject({ tools: { listChanged: true } });
    expect(capabilities).not.toMatchObject({ prompts: { listChanged: true } });
    expect(capabilities).not.toMatchObject({ resources: { listChanged: true } });
    expect(capabilities).not.toMatchObject({ resources: { subscribe: true } });
    const from = peer.lines.length;
    const [listen] = await untilUpstream(peer, '>', isListen);
    expect(listenFilterOf(listen!)).toEqual({ toolsListChanged: true });
    await untilUpstream(peer, '<', isAck);
    const prompt = await callTool(peer, 1, 'toggle', { enabled: false, target: 'prompt' });
    const added = await callTool(peer, 2, 'add_tool');
    expect(framesSince(peer, from)).toEqual([prompt, note(TOOLS), added]);
    expect((await request(peer, 3, 'resources/subscribe', { uri: NOTES })).error).toMatchObject({
      code: -32601,
    });
    peer.kill();
  });

  it('an upstream without notifications: no listen stream, no list change, and resources/subscribe is -32601', async () => {
    const { peer, capabilities } = await start('--no-list-changed');
    expect(JSON.stringify(capabilities)).not.toMatch(/listChanged":true|subscribe":true/);
    const added = await callTool(peer, 1, 'add_tool');
    expect((await request(peer, 2, 'resources/subscribe', { uri: NOTES })).error).toMatchObject({
      code: -32601,
      data: { cause: 'method_not_found' },
    });
    // Sentinels: a listen stream would reach the upstream before the one, a frame the client before the other.
    await upstreamBarrier(peer);
    await barrier(peer);
    expect(framesSince(peer).filter((frame) => !('id' in frame))).toEqual([]);
    expect(textOf(added)).toBe('added added_1');
    expect(upstreamFrames(peer, '>').filter(isListen)).toEqual([]);
    peer.kill();
  });

  it('an upstream with resources.subscribe and no list changes: the first resources/subscribe opens the first stream, without a replay', async () => {
    // Short reopen waits: the pause below is ten times the first and five times the longest.
    const { peer, capabilities } = await startWith(
      ['--listen-backoff', '20', '--listen-max-backoff', '40'],
      '--subscribe-only',
    );
    expect(capabilities).toMatchObject({ resources: { subscribe: true } });
    await upstreamBarrier(peer);
    expect(upstreamFrames(peer, '>').filter(isListen)).toEqual([]);
    expect((await request(peer, 1, 'resources/subscribe', { uri: NOTES })).result).toEqual({});
    const [listen] = await untilUpstream(peer, '>', isListen);
    expect(listenFilterOf(listen!)).toEqual({ resourceSubscriptions: [NOTES] });
    const touched = await callTool(peer, 2, 'touch', { uri: NOTES });
    expect(framesSince(peer).filter((frame) => !('id' in frame))).toEqual([note(UPDATED, { uri: NOTES })]);
    expect(peer.lines.indexOf(JSON.stringify(note(UPDATED, { uri: NOTES })))).toBeLessThan(
      peer.lines.indexOf(JSON.stringify(touched)),
    );
    // The last unsubscribe without lists ends the stream, and none opens.
    expect((await request(peer, 3, 'resources/unsubscribe', { uri: NOTES })).result).toEqual({});
    await untilUpstream(
      peer,
      '>',
      (frame) => frame.method === 'notifications/cancelled' && paramsOf(frame).requestId === listen!.id,
    );
    // real timer: a stream the bridge ended itself must not reopen after the reopen waits
    // (--listen-backoff 20, --listen-max-backoff 40), which run in the bridge process, whose clock
    // this test cannot move (the rule runs on virtual time in marbles/subscriptions.marbles.test.ts).
    await new Promise((resolve) => setTimeout(resolve, 200));
    await upstreamBarrier(peer);
    expect(upstreamFrames(peer, '>').filter(isListen)).toHaveLength(1);
    peer.kill();
  });

  it('an upstream that refuses the listen stream: resources/subscribe gets the error of the upstream, and no list change arrives', async () => {
    const { peer } = await start('--refuse-listen');
    await untilUpstream(peer, '<', (frame) => 'error' in frame);
    const refusal = { code: -32603, message: 'This server refuses listen streams.' };
    expect((await request(peer, 1, 'resources/subscribe', { uri: NOTES })).error).toEqual(refusal);
    const added = await callTool(peer, 2, 'add_tool');
    // A list change comes before the result of add_tool; the ping is a sentinel.
    await barrier(peer);
    expect(framesSince(peer).filter((frame) => !('id' in frame))).toEqual([]);
    expect(textOf(added)).toBe('added added_1');
    expect(peer.stderr.some((line) => line.includes('refused the listen stream'))).toBe(true);
    expect(
      peer.stderr.some((line) => line.includes('the listen stream for a change of the subscriptions failed')),
    ).toBe(true);
    peer.kill();
  });

  it('an upstream notifications/cancelled that ends the listen stream never reaches the client, and a client request with the id of that stream completes', async () => {
    const peer = startBridge({ upstream: tapped(miniUpstream()) });
    await connect(peer);
    for (const after of [false, true]) {
      // The upstream id of the open stream, which the client uses for its own request.
      const listens = await untilUpstream(peer, '>', isListen);
      const listenId = listens.at(-1)!.id as number;
      const from = peer.lines.length;
      const ended = await callTool(peer, listenId, 'end_listen', { after });
      expect(ended).toEqual({
        jsonrpc: '2.0',
        id: listenId,
        result: { content: [{ type: 'text', text: 'ended' }] },
      });
      await untilUpstream(
        peer,
        '<',
        (frame) => frame.method === 'notifications/cancelled' && paramsOf(frame).requestId === listenId,
      );
      // The bridge opens a new stream; its acknowledgment replays the tool list.
      expect(await eventsSince(peer, from, 1)).toEqual([note(TOOLS)]);
      await untilUpstream(peer, '>', (frame) => isListen(frame) && (frame.id as number) > listenId);
    }
    await barrier(peer);
    expect(framesSince(peer).map((frame) => frame.method)).not.toContain('notifications/cancelled');
    peer.kill();
  });

  it('the end of stdin while the listener waits to open a new stream ends the bridge with code 0 at once, and no stream opens', async () => {
    // The next stream would open an hour after the end of this one: an exit is the end of the wait.
    const { peer } = await startWith(['--listen-backoff', '3600000'], '--tools-list-changed-only');
    await untilUpstream(peer, '>', isListen);
    expect(textOf(await callTool(peer, 1, 'drop_listen'))).toBe('ended 1 listen streams');
    await waitFor(() => peer.stderr.some((line) => line.includes('the next one opens in 3600 s')), {
      what: 'the line of the reopen wait',
    });
    peer.closeStdin();
    expect(await peer.exit).toEqual({ code: 0, signal: null });
    expect(upstreamFrames(peer, '>').filter(isListen)).toHaveLength(1);
  });

  it('the upstream server ends its listen stream at its shutdown: no notifications/cancelled reaches the client, and the bridge exits with code 1', async () => {
    const { peer } = await start();
    await untilUpstream(peer, '>', isListen);
    expect(textOf(await callTool(peer, 1, 'shutdown', { after_ms: 50 }))).toBe('the server stops in 50 ms');
    expect(await peer.exit).toEqual({ code: 1, signal: null });
    expect(framesSince(peer).map((frame) => frame.method)).not.toContain('notifications/cancelled');
  });
});
