/**
 * Schema transcripts (docs/testing.md#testing-properties): one broad session through the real executable with the tap upstream in
 * front of the fixture, and every frame of both directions checked against the official schema of
 * its revision (2025-11-25 toward the client, 2026-07-28 toward the upstream) plus the deny-list of
 * 2026-07-28 members. Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { TestContext } from 'vitest';
import { handshake, initializeRequest, note, req, scripted, startBridge } from '../helpers/bridgeProcess.js';
import { exchange, killAllPeers, notification, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import type { ClientRevision } from '../helpers/schemas.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { createTap, expectValidTranscript } from '../helpers/tap.js';
import type { Tap, TapReport } from '../helpers/tap.js';
import { acceptAll, autoAnswer, waitFor } from './support.js';
import type { Answerer, AutoAnswer } from './support.js';

const NOTES = 'file:///fixture/notes.txt';
/** Frame contents that must never reach stderr (the secret scan). */
const MARKER = 'transcript-marker-81d4';
const TIMEOUT_MS = 20_000;

const totals = { sessions: 0, toClient: 0, toUpstream: 0 };

/** Checks a finished transcript, prints its counts and adds them to the totals. */
function report(name: string, tap: Tap, peer: RawPeer, revision: ClientRevision = '2025-11-25'): TapReport {
  const checked = expectValidTranscript(tap, peer, revision);
  totals.sessions += 1;
  totals.toClient += checked.toClient;
  totals.toUpstream += checked.toUpstream;
  console.log(
    `${name}: ${checked.toClient} frames to the client valid for ${revision}, ` +
      `${checked.toUpstream} frames to the upstream valid for 2026-07-28\n` +
      Object.entries(checked.kinds)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([kind, count]) => `  ${kind}: ${count}`)
        .join('\n'),
  );
  return checked;
}

afterAll(() => {
  console.log(
    `schema transcripts: ${totals.sessions} sessions, ${totals.toClient} frames valid for their revision ` +
      `(and free of 2026-07-28 members), ${totals.toUpstream} frames valid for 2026-07-28`,
  );
});

afterAll(killAllPeers);

/** Starts the bridge with the tap in front of `upstream`; everything ends with the test. */
function session(
  context: TestContext,
  upstream?: string[],
  answer: Answerer = acceptAll,
): { tap: Tap; peer: RawPeer; answers: AutoAnswer } {
  const tap = createTap();
  const peer = tap.attach(startBridge(tap.wrap(upstream === undefined ? {} : { upstream })));
  const answers = autoAnswer(peer, answer);
  context.onTestFinished(async () => {
    answers.stop();
    peer.kill();
    await peer.exit;
    tap.dispose();
  });
  return { tap, peer, answers };
}

/** The text of the first content block of a tools/call result. */
const textOf = (response: Frame): string => {
  const result = response['result'] as { content?: { text?: string }[] } | undefined;
  return result?.content?.[0]?.text ?? '';
};

const errorCause = (response: Frame): unknown =>
  (response['error'] as { data?: { cause?: unknown } } | undefined)?.data?.cause;

describe.concurrent('schema validation of whole sessions', () => {
  it('validates every frame of both directions of a broad session', async (context) => {
    // The user accepts everything, except the form the test holds to cancel its call.
    let hold = false;
    const held: string[] = [];
    const { tap, peer } = session(context, undefined, (request) => {
      if (hold) {
        held.push(String(request['id']));
        return undefined;
      }
      return acceptAll(request);
    });
    let nextId = 100;
    const call = (method: string, params?: object): Promise<Frame> =>
      exchange(peer, req(nextId++, method, params) as Frame & { id: number }, TIMEOUT_MS);
    const tool = (name: string, args: object = {}, meta?: object): Promise<Frame> =>
      call(
        'tools/call',
        meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta },
      );

    // Before initialize (docs/lifecycle.md#lifecycle-before-ready).
    expect((await call('ping'))['result']).toEqual({});
    expect((await call('logging/setLevel', { level: 'debug' }))['result']).toEqual({});
    expect(errorCause(await call('tools/list'))).toBe('not_initialized');
    expect(errorCause(await call('server/discover'))).toBe('method_not_found');

    // Lifecycle: initialize, every list, initialized: the lists wait for the first acknowledgment
    // of the listen stream, then are answered, and no list change follows them
    // (docs/notifications.md#notifications-first-list).
    peer.send(initializeRequest(1));
    const init = await peer.nextFrame(responseTo(1), TIMEOUT_MS);
    expect(init['result']).toMatchObject({ protocolVersion: '2025-11-25' });
    const lists = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'];
    lists.forEach((method, index) => peer.send(req(60 + index, method)));
    peer.send(note('notifications/initialized'));
    for (const index of lists.keys()) {
      expect(await peer.nextFrame(responseTo(60 + index), TIMEOUT_MS)).toHaveProperty('result');
    }
    peer.send(initializeRequest(2));
    expect(errorCause(await peer.nextFrame(responseTo(2)))).toBe('already_initialized');

    // Every plain tool.
    expect(textOf(await tool('echo', { text: MARKER }))).toBe(MARKER);
    expect(textOf(await tool('add', { a: 2, b: 3 }))).toBe('5');
    expect(textOf(await tool('slow', { ms: 10 }))).toBe('slept 10 ms');
    expect(textOf(await tool('progress', { count: 3 }, { progressToken: 'p-1' }))).toBe(
      'sent 3 progress notifications',
    );
    expect(textOf(await tool('bare_array', { values: [1, 2, 3] }))).toBe('3 values');
    expect(textOf(await tool('structured', { text: 'abc' }))).toBe('3 bytes');
    expect(textOf(await tool('array_output'))).toBe('[1,2,3]');
    expect(textOf(await tool('show'))).toContain('ui://fixture/view');
    expect(textOf(await tool('log'))).toBe('logged 4 messages');
    // (meta_echo is left out: it returns the upstream _meta as its payload, by design.)
    const meta = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'vscode.x': 1 };
    expect(textOf(await tool('echo', { text: 'traced' }, meta))).toBe('traced');

    // Prompts, resources, completion.
    expect(
      (await call('prompts/get', { name: 'greet', arguments: { name: 'Ada' } }))['result'],
    ).toBeDefined();
    expect(JSON.stringify(await call('prompts/get', { name: 'ask_name' }))).toContain('Hello, Ada.');
    for (const uri of [
      NOTES,
      'file:///fixture/readme.txt',
      'ui://fixture/view',
      'file:///fixture/other.txt',
    ]) {
      expect(await call('resources/read', { uri })).toHaveProperty('result');
    }
    const promptRef = { type: 'ref/prompt', name: 'greet' };
    expect(
      await call('completion/complete', { ref: promptRef, argument: { name: 'name', value: 'A' } }),
    ).toHaveProperty('result');
    const templateRef = { type: 'ref/resource', uri: 'file:///fixture/{name}' };
    expect(
      await call('completion/complete', { ref: templateRef, argument: { name: 'name', value: 'n' } }),
    ).toHaveProperty('result');

    // Input rounds of every kind.
    expect(textOf(await tool('ask_form'))).toMatch(/^form: accept /);
    expect(textOf(await tool('ask_url'))).toBe('url: accept');
    expect(textOf(await tool('ask_url_twice'))).toBe('url twice: accept');
    expect(textOf(await tool('ask_url_twice', { complete: true }))).toBe('url twice: accept');
    expect(textOf(await tool('ask_bad_url'))).toBe('url: decline');
    expect(textOf(await tool('confirm'))).toBe('confirmed: accept');
    expect(textOf(await tool('two_rounds'))).toBe('two rounds: Ada, Ada');
    expect(errorCause(await tool('many_inputs'))).toBe('too_many_input_requests');
    expect((await tool('refused_state'))['result']).toMatchObject({ isError: true });
    expect(textOf(await tool('ask_sample'))).toBe('model: hello');
    // The upstream itself refuses: VS Code declares no sampling.tools (docs/input-rounds.md#input-undeclared).
    expect(await tool('sample_tools')).toHaveProperty('error');
    expect(textOf(await tool('ask_roots'))).toBe('roots: file:///work/project');
    expect(textOf(await tool('multi'))).toBe('name: Ada (accept); roots: 1');
    expect(errorCause(await tool('never_stops'))).toBe('too_many_rounds');

    // Cancellations: during an upstream wait, and while the bridge waits for the client.
    peer.send(req(90, 'tools/call', { name: 'slow', arguments: { ms: 5000 } }));
    await waitFor(() => peer.stderr.includes('bridge-fixture-server: slow: started'), {
      timeoutMs: TIMEOUT_MS,
      what: 'the call at the tool',
    });
    peer.send(note('notifications/cancelled', { requestId: 90, reason: 'the user stopped it' }));
    hold = true;
    peer.send(req(91, 'tools/call', { name: 'ask_form' }));
    await waitFor(() => held.length > 0, { timeoutMs: TIMEOUT_MS, what: 'the held form' });
    peer.send(note('notifications/cancelled', { requestId: 91 }));
    await peer.nextFrame(notification('notifications/cancelled'), TIMEOUT_MS);
    hold = false;

    // List changes, subscriptions, log levels.
    expect(textOf(await tool('toggle', { enabled: false }))).toBe('tool toggled: disabled');
    expect(textOf(await tool('toggle', { enabled: false, target: 'prompt' }))).toBe(
      'prompt toggled: disabled',
    );
    expect(textOf(await tool('toggle', { enabled: true }))).toBe('tool toggled: enabled');
    expect(textOf(await tool('add_tool'))).toBe('added added_1');
    expect(await call('resources/subscribe', { uri: NOTES })).toHaveProperty('result', {});
    expect(textOf(await tool('touch', { uri: NOTES }))).toBe(`touched ${NOTES}`);
    await peer.nextFrame(notification('notifications/resources/updated'), TIMEOUT_MS);
    expect(await call('resources/unsubscribe', { uri: NOTES })).toHaveProperty('result', {});
    expect(await call('logging/setLevel', { level: 'warning' })).toHaveProperty('result', {});
    expect(textOf(await tool('log'))).toBe('logged 4 messages');

    // Errors: an unknown tool (upstream error), an unknown method, a bad line.
    expect(await tool('no_such_tool')).toHaveProperty('error');
    expect(errorCause(await call('tasks/list'))).toBe('method_not_found');
    peer.send('{"jsonrpc":"2.0","id":77,"method":');
    expect(errorCause(await peer.nextFrame(responseTo(77)))).toBe('parse_error');

    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
    const checked = report('broad session', tap, peer);
    // Frame contents and the roots of the user never reach stderr.
    expectNoSecrets(peer, [MARKER, 'file:///work/project'], { streams: ['stderr'] });
    expect(checked.toClient).toBeGreaterThanOrEqual(95);
    expect(checked.toUpstream).toBeGreaterThanOrEqual(75);
    for (const kind of [
      'client result initialize',
      'client result tools/call',
      'client result prompts/get',
      'client result resources/read',
      'client result completion/complete',
      'client result resources/subscribe',
      'client error tools/call',
      'client request elicitation/create',
      'client request sampling/createMessage',
      'client request roots/list',
      'client notification notifications/progress',
      'client notification notifications/message',
      'client notification notifications/tools/list_changed',
      'client notification notifications/prompts/list_changed',
      'client notification notifications/resources/updated',
      'client notification notifications/elicitation/complete',
      'client notification notifications/cancelled',
      'upstream request server/discover',
      'upstream request tools/call',
      'upstream request subscriptions/listen',
      'upstream request completion/complete',
      'upstream notification notifications/cancelled',
    ]) {
      expect(checked.kinds[kind], kind).toBeGreaterThan(0);
    }
  });

  it('validates the frames of a client with URL elicitation and roots only', async (context) => {
    const { tap, peer } = session(context);
    let nextId = 10;
    const tool = (name: string, args: object = {}): Promise<Frame> =>
      exchange(
        peer,
        req(nextId++, 'tools/call', { name, arguments: args }) as Frame & { id: number },
        TIMEOUT_MS,
      );
    await handshake(peer, { elicitation: { url: {} }, roots: {} });
    // Without form mode, an accepted URL asked again goes out again with the same elicitationId.
    expect(textOf(await tool('ask_url_twice'))).toBe('url twice: accept');
    // Kinds the client did not declare: the upstream itself refuses (docs/input-rounds.md#input-undeclared).
    expect(await tool('ask_form')).toHaveProperty('error');
    expect(await tool('ask_sample')).toHaveProperty('error');
    expect(textOf(await tool('ask_roots'))).toBe('roots: file:///work/project');
    expect(textOf(await tool('ask_bad_url'))).toBe('url: decline');
    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
    const checked = report('URL and roots client', tap, peer);
    expect(checked.kinds['client request elicitation/create']).toBe(2);
    expect(checked.toUpstream).toBeGreaterThanOrEqual(9);
  });

  it('validates the frames of the Copilot harness flow', async (context) => {
    const { tap, peer } = session(context);
    const modernMeta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    expect(
      errorCause(
        await exchange(peer, req('d', 'server/discover', { _meta: modernMeta }) as Frame & { id: string }),
      ),
    ).toBe('method_not_found');
    expect(
      errorCause(
        await exchange(peer, req('m', 'tools/list', { _meta: modernMeta }) as Frame & { id: string }),
      ),
    ).toBe('method_not_found');
    await handshake(peer, { sampling: {}, elicitation: { form: {}, url: {} } });
    const call = (id: number, name: string, args: object = {}): Promise<Frame> =>
      exchange(
        peer,
        req(id, 'tools/call', { name, arguments: args, _meta: { progressToken: 0 } }) as Frame & {
          id: number;
        },
        TIMEOUT_MS,
      );
    expect(textOf(await call(2, 'progress', { count: 2 }))).toBe('sent 2 progress notifications');
    expect(textOf(await call(3, 'ask_form'))).toMatch(/^form: accept/);
    expect(textOf(await call(4, 'ask_sample'))).toBe('model: hello');
    // No roots declared: the upstream refuses by itself, and its error passes.
    expect(await call(5, 'ask_roots')).toHaveProperty('error');
    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
    const checked = report('Copilot harness', tap, peer);
    expect(checked.kinds['client notification notifications/progress']).toBe(2);
  });

  it.for(['2025-06-18', '2025-03-26', '2024-11-05'] as const)(
    'validates every frame of a session of a %s client against the schema of its revision',
    async (revision, context) => {
      const { tap, peer } = session(context);
      let nextId = 10;
      const call = (method: string, params?: object): Promise<Frame> =>
        exchange(peer, req(nextId++, method, params) as Frame & { id: number }, TIMEOUT_MS);
      const tool = (name: string, args: object = {}, meta?: object): Promise<Frame> =>
        call('tools/call', { name, arguments: args, ...(meta === undefined ? {} : { _meta: meta }) });
      // The client asks for its revision and declares what that revision can have: the bridge
      // answers in that revision (docs/revisions.md).
      peer.send({
        ...initializeRequest(1),
        params: {
          protocolVersion: revision,
          capabilities: {
            roots: { listChanged: true },
            sampling: {},
            ...(revision === '2025-06-18' ? { elicitation: {} } : {}),
          },
          clientInfo: { name: 'older-client', version: '1.0.0' },
        },
      });
      const init = await peer.nextFrame(responseTo(1), TIMEOUT_MS);
      expect(init['result']).toMatchObject({ protocolVersion: revision });
      peer.send(note('notifications/initialized'));
      for (const method of ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
        expect(await call(method)).toHaveProperty('result');
      }
      expect(await call('prompts/get', { name: 'greet', arguments: { name: 'Ada' } })).toHaveProperty(
        'result',
      );
      expect(await call('resources/read', { uri: NOTES })).toHaveProperty('result');
      expect(textOf(await tool('echo', { text: MARKER }))).toBe(MARKER);
      expect(textOf(await tool('structured', { text: 'abc' }))).toBe('3 bytes');
      expect(textOf(await tool('progress', { count: 2 }, { progressToken: 'p-1' }))).toBe(
        'sent 2 progress notifications',
      );
      expect(await call('logging/setLevel', { level: 'debug' })).toHaveProperty('result', {});
      expect(textOf(await tool('log'))).toBe('logged 4 messages');
      if (revision === '2025-06-18') expect(textOf(await tool('ask_form'))).toMatch(/^form: accept /);
      else expect(await tool('ask_form')).toHaveProperty('error');
      // No revision before 2025-11-25 has URL elicitation, and none declared it: an error.
      expect(await tool('ask_url')).toHaveProperty('error');
      expect(textOf(await tool('ask_sample'))).toBe('model: hello');
      expect(textOf(await tool('ask_roots'))).toBe('roots: file:///work/project');
      expect(await call('resources/subscribe', { uri: NOTES })).toHaveProperty('result', {});
      expect(textOf(await tool('touch', { uri: NOTES }))).toBe(`touched ${NOTES}`);
      await peer.nextFrame(notification('notifications/resources/updated'), TIMEOUT_MS);
      expect(textOf(await tool('add_tool'))).toBe('added added_1');
      expect(await tool('no_such_tool')).toHaveProperty('error');
      peer.closeStdin();
      expect((await peer.exit).code).toBe(0);
      const checked = report(`${revision} client`, tap, peer, revision);
      expect(checked.toClient).toBeGreaterThanOrEqual(30);
      for (const kind of [
        'client result initialize',
        'client result tools/call',
        'client error tools/call',
        'client request sampling/createMessage',
        'client request roots/list',
        'client notification notifications/progress',
        'client notification notifications/message',
        'client notification notifications/tools/list_changed',
        'client notification notifications/resources/updated',
      ]) {
        expect(checked.kinds[kind], kind).toBeGreaterThan(0);
      }
      expect(checked.kinds['client request elicitation/create'] ?? 0).toBe(revision === '2025-06-18' ? 1 : 0);
      expect(checked.kinds['client notification notifications/elicitation/complete']).toBeUndefined();
    },
  );

  it.for(['unknown-result-type', 'garbage', 'legacy-only', 'bad-discover', 'refuse-listen', 'echo'])(
    'validates the frames of a session with the scripted upstream in mode %s',
    async (mode, context) => {
      const { tap, peer } = session(context, scripted(mode));
      const init = await handshake(peer);
      if ('result' in init) {
        await exchange(peer, req(2, 'tools/list') as Frame & { id: number }, TIMEOUT_MS);
        await exchange(
          peer,
          req(3, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }) as Frame & { id: number },
          TIMEOUT_MS,
        );
      } else {
        // A failed initialize may be sent again (docs/lifecycle.md#lifecycle-states).
        peer.send(initializeRequest(4));
        await peer.nextFrame(responseTo(4), TIMEOUT_MS);
      }
      peer.closeStdin();
      expect((await peer.exit).code).toBe(0);
      const checked = report(`scripted ${mode}`, tap, peer);
      expect(checked.toClient).toBeGreaterThanOrEqual(2);
      expect(checked.toUpstream).toBeGreaterThanOrEqual(1);
    },
  );
});
