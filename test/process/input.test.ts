/**
 * Input requests through the built bridge (docs/input-rounds.md#input-rounds, docs/lines.md#lines-bad-line bad lines,
 * §2.8, §2.10, §2.11, §9.4): raw JSON-RPC transcripts of a client with the capabilities of VS Code
 * in front of the 2026-07-28 fixture server. A tap between the bridge and the fixture shows what
 * the upstream got. Needs the build (`npx tsc -p tsconfig.build.json`).
 *
 * Not here: the input timeout. Its limit is one hour and the executable has no option to shorten
 * it; marbles/inputRounds.marbles.test.ts ('an input timeout cancels the outstanding bridge
 * requests before the error') covers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { CONTINUE_SCHEMA, CONTINUE_URL_MESSAGE, refusedStateText } from '../../src/codec/input/index.js';
import { WIRE_ERRORS } from '../helpers/wireErrors.js';
import type { WireCause as Cause } from '../helpers/wireErrors.js';
import {
  bridgeRequest,
  framesSince,
  handshake,
  handshakeWithToolsList,
  miniUpstream,
  note,
  req,
  startBridge,
  tapped,
  VSCODE_CAPABILITIES,
  untilUpstream,
  upstreamFrames,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, notification, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import { findModernLeaks, validateLegacyFrame } from '../helpers/schemas.js';

const SIGN_IN_URL = 'https://fixture.example.com/sign-in';
const PROFILE = { name: 'Ada', age: 36, subscribe: true, color: 'red' };
const SAMPLED = { model: 'm', role: 'assistant', content: { type: 'text', text: 'Hi.' } };
const DENIED = {
  code: -32000,
  message: 'The user has denied permission to call this method.',
  data: { n: 1 },
};
const CANCELED_BY_CLIENT = 'the client canceled the request';
let invalidAnswers = 0;
const TOOLS_LIST_CHANGED = 'notifications/tools/list_changed';

afterAll(killAllPeers);

/** The error a bridge-made failure has (docs/errors.md#errors-table). */
const bridgeFailure = (cause: Cause, detail: string): Frame => {
  const [code, message] = WIRE_ERRORS[cause];
  return { code, message, data: { cause, detail } };
};
const textOf = (frame: Frame): string => (frame.result as { content: { text: string }[] }).content[0]!.text;
const paramsOf = (frame: Frame): Record<string, unknown> => frame.params as Record<string, unknown>;

let traces = 0;
/** A `traceparent` of its own for each call: it passes upstream, so the tap finds that call's frames. */
const newTrace = (): string => `00-${(++traces).toString(16).padStart(32, '0')}-${'1'.repeat(16)}-01`;

/** One client connection with the calls, answers and checks that the tests share. */
class Client {
  private pings = 0;
  constructor(readonly peer: RawPeer) {}

  /** Sends tools/call and returns the traceparent that tags its upstream frames. */
  call(id: string | number, name: string, args: object = {}, meta: object = {}): string {
    const traceparent = newTrace();
    this.peer.send(req(id, 'tools/call', { name, arguments: args, _meta: { traceparent, ...meta } }));
    return traceparent;
  }
  /** The next request of the bridge with `method`. */
  asked(method = 'elicitation/create'): Promise<Frame> {
    return this.peer.nextFrame(bridgeRequest(method));
  }
  /** Writes the frames in one write, so that the bridge reads them in one chunk. */
  together(...frames: object[]): void {
    this.peer.child.stdin!.write(frames.map((frame) => `${JSON.stringify(frame)}\n`).join(''));
  }
  reply(id: unknown, result: object): void {
    this.peer.send({ jsonrpc: '2.0', id, result });
  }
  response(id: string | number): Promise<Frame> {
    return this.peer.nextFrame(responseTo(id));
  }
  /** A ping and its response: every frame the bridge made before it is written by then. */
  async barrier(): Promise<string> {
    const id = `barrier-${++this.pings}`;
    this.peer.send(req(id, 'ping'));
    await this.response(id);
    return id;
  }
  /** The frames the upstream got for the call tagged `trace`. */
  upstreamOf(trace: string): Frame[] {
    return upstreamFrames(this.peer, '>').filter(
      (frame) => (paramsOf(frame)?._meta as Record<string, unknown> | undefined)?.traceparent === trace,
    );
  }
  /** Waits until the tap has shown `count` upstream requests of the call tagged `trace`. */
  async upstreamRounds(trace: string, count: number, timeoutMs = 10_000): Promise<Frame[]> {
    await waitFor(() => this.upstreamOf(trace).length >= count, {
      timeoutMs,
      what: `${count} upstream requests`,
    });
    return this.upstreamOf(trace);
  }
  /** What the upstream got last for `trace` as `inputResponses`. */
  async lastInputResponses(trace: string, rounds: number): Promise<unknown> {
    const sent = await this.upstreamRounds(trace, rounds);
    return paramsOf(sent[rounds - 1]!).inputResponses;
  }
  /**
   * Proves that nothing more went upstream for `trace` than `count` requests: a tools/list sent
   * after it reaches the tap, and the tap logs in order.
   */
  async upstreamStopsAt(trace: string, count: number): Promise<void> {
    const marker = newTrace();
    this.peer.send(req(`marker-${marker}`, 'tools/list', { _meta: { traceparent: marker } }));
    await this.upstreamRounds(marker, 1);
    await this.response(`marker-${marker}`);
    expect(this.upstreamOf(trace)).toHaveLength(count);
  }
}

/** Every frame the bridge wrote is valid for 2025-11-25 and has no 2026-07-28 member (§9.4 item 1). */
function expectValidTranscript(peer: RawPeer): void {
  const problems = framesSince(peer).flatMap((frame) => {
    // The schema makes `id` optional and has no null: an error for an unknown id is checked without it.
    const checked = frame.id === null ? { ...frame, id: undefined } : frame;
    return [
      ...validateLegacyFrame(JSON.parse(JSON.stringify(checked)), 'toClient'),
      ...findModernLeaks(frame),
    ];
  });
  expect(problems).toEqual([]);
}

/**
 * A new bridge in front of a tapped upstream, initialized after a tools/list, with the catch-up of
 * its first listen acknowledgment read: one list change, for the tools.
 */
async function connect(
  capabilities: object,
  upstream?: string[],
  bridgeArgs: string[] = [],
): Promise<Client> {
  const peer = startBridge({ bridgeArgs, upstream: tapped(upstream) });
  const own = new Client(peer);
  await handshakeWithToolsList(peer, capabilities);
  await peer.nextFrame(notification(TOOLS_LIST_CHANGED));
  return own;
}

describe('input requests of the fixture to a client with the capabilities of VS Code', () => {
  let client: Client;
  beforeAll(async () => {
    const peer = startBridge({ upstream: tapped() });
    client = new Client(peer);
    await handshakeWithToolsList(peer);
    // The catch-up of the first listen stream for the tools listed before; nothing else comes
    // unasked afterwards.
    await peer.nextFrame(notification(TOOLS_LIST_CHANGED));
  });

  it('bridge requests have the string ids b-1, b-2, … from a counter of the connection', async () => {
    // Its own bridge: the counter starts at 1 whichever tests ran before.
    const peer = startBridge({ upstream: tapped() });
    const client = new Client(peer);
    await handshakeWithToolsList(peer);
    client.call(10, 'multi');
    const form = await client.asked('elicitation/create');
    const roots = await client.asked('roots/list');
    expect([form.id, roots.id]).toEqual(['b-1', 'b-2']);
    client.reply('b-1', { action: 'accept', content: { name: 'Ada' } });
    client.reply('b-2', { roots: [{ uri: 'file:///work', name: 'work' }] });
    expect(textOf(await client.response(10))).toBe('name: Ada (accept); roots: 1');
    client.call('s-11', 'ask_form');
    expect((await client.asked()).id).toBe('b-3');
    client.reply('b-3', { action: 'cancel' });
    expect(textOf(await client.response('s-11'))).toBe('form: cancel');
  });

  it('all input requests of a round go to the client at once, before any answer', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(12, 'multi');
    const form = await client.asked('elicitation/create');
    const roots = await client.asked('roots/list');
    // Adjacent lines, written before the client answered anything.
    expect(framesSince(client.peer, from)).toEqual([form, roots]);
    expect(form).toEqual({
      jsonrpc: '2.0',
      id: form.id,
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    });
    expect(roots).toEqual({ jsonrpc: '2.0', id: roots.id, method: 'roots/list' });
    client.reply(roots.id, { roots: [] });
    client.reply(form.id, { action: 'decline' });
    expect(textOf(await client.response(12))).toBe('name: nobody (decline); roots: 0');
    expect(await client.lastInputResponses(trace, 2)).toEqual({
      name: { action: 'decline' },
      roots: { roots: [] },
    });
  });

  it('two calls wait at the same time: each answer goes to the round of its own bridge request', async () => {
    client.call(13, 'ask_form');
    client.call(14, 'ask_sample');
    const form = await client.asked('elicitation/create');
    const sampling = await client.asked('sampling/createMessage');
    client.reply(sampling.id, SAMPLED);
    expect(textOf(await client.response(14))).toBe('model: Hi.');
    client.reply(form.id, { action: 'accept', content: { name: 'Ada' } });
    expect(textOf(await client.response(13))).toBe('form: accept {"name":"Ada"}');
  });

  it('a form: the upstream gets accept with the content, and decline and cancel without content', async () => {
    const trace = client.call(20, 'ask_form');
    const ask = await client.asked();
    expect(paramsOf(ask)).toMatchObject({ mode: 'form', message: 'Tell us about you.' });
    client.reply(ask.id, { action: 'accept', content: PROFILE });
    expect(textOf(await client.response(20))).toBe(`form: accept ${JSON.stringify(PROFILE)}`);
    expect(await client.lastInputResponses(trace, 2)).toEqual({
      profile: { action: 'accept', content: PROFILE },
    });
    for (const action of ['decline', 'cancel']) {
      const id = `form-${action}`;
      const tagged = client.call(id, 'ask_form');
      // Content with a decline or a cancel stays with the bridge.
      client.reply((await client.asked()).id, { action, content: { name: 'Eve' } });
      expect(textOf(await client.response(id))).toBe(`form: ${action}`);
      expect(await client.lastInputResponses(tagged, 2)).toEqual({ profile: { action } });
    }
  });

  it('an accepted URL gets exactly one notifications/elicitation/complete with its elicitationId, before the result', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(30, 'ask_url');
    const ask = await client.asked();
    const elicitationId = paramsOf(ask).elicitationId;
    expect(paramsOf(ask)).toEqual({
      mode: 'url',
      message: 'Sign in to continue.',
      url: SIGN_IN_URL,
      elicitationId: expect.stringMatching(/^elicitation-\d+$/),
    });
    // VS Code may send content with a URL answer; it never goes upstream.
    client.reply(ask.id, { action: 'accept', content: { opened: true } });
    const result = await client.response(30);
    expect(textOf(result)).toBe('url: accept');
    const after = framesSince(client.peer, from).slice(1);
    expect(after).toEqual([
      { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId } },
      result,
    ]);
    expect(await client.lastInputResponses(trace, 2)).toEqual({ auth: { action: 'accept' } });
  });

  it('a declined URL gets no notifications/elicitation/complete', async () => {
    const from = client.peer.lines.length;
    client.call(31, 'ask_url');
    client.reply((await client.asked()).id, { action: 'decline' });
    expect(textOf(await client.response(31))).toBe('url: decline');
    await client.barrier();
    const methods = framesSince(client.peer, from).map((frame) => frame.method);
    expect(methods).not.toContain('notifications/elicitation/complete');
  });

  it('an accepted URL asked again in a later round becomes the Continue form, and completes once', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(32, 'ask_url_twice');
    const url = await client.asked();
    client.reply(url.id, { action: 'accept' });
    const form = await client.asked();
    expect(paramsOf(form)).toEqual({
      mode: 'form',
      message: CONTINUE_URL_MESSAGE,
      requestedSchema: CONTINUE_SCHEMA,
    });
    client.reply(form.id, { action: 'accept', content: { continue: 'Continue' } });
    const result = await client.response(32);
    expect(textOf(result)).toBe('url twice: accept');
    const completes = framesSince(client.peer, from).filter(
      notification('notifications/elicitation/complete'),
    );
    expect(completes).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/elicitation/complete',
        params: { elicitationId: paramsOf(url).elicitationId },
      },
    ]);
    expect(client.peer.lines.indexOf(JSON.stringify(completes[0]))).toBeLessThan(
      client.peer.lines.indexOf(JSON.stringify(result)),
    );
    // The Continue form of a URL gives accept without content.
    expect(await client.lastInputResponses(trace, 3)).toEqual({ auth: { action: 'accept' } });
  });

  it('a URL the bridge refuses never reaches the client, and the upstream gets decline', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(33, 'ask_bad_url');
    expect(textOf(await client.response(33))).toBe('url: decline');
    expect(framesSince(client.peer, from)).toHaveLength(1);
    // Since the call: the tools/list of the start has URLs of its own.
    expect(client.peer.lines.slice(from).some((line) => line.includes('file:'))).toBe(false);
    expect(await client.lastInputResponses(trace, 2)).toEqual({ file: { action: 'decline' } });
    // stderr is a pipe of its own (in the --shared run, relayed by the shim): its line may come
    // after the response on stdout.
    await waitFor(() => client.peer.stderr.some((line) => /warn.*input request 'file'.*URL/.test(line)), {
      what: "the bridge's warning of the refused URL",
    });
  });

  it('a form without properties becomes a one-choice Continue form', async () => {
    const trace = client.call(34, 'confirm');
    const ask = await client.asked();
    expect(paramsOf(ask)).toEqual({
      mode: 'form',
      message: 'Do you confirm?',
      requestedSchema: CONTINUE_SCHEMA,
    });
    expect(CONTINUE_SCHEMA).toEqual({
      type: 'object',
      properties: { continue: { type: 'string', title: 'Continue', enum: ['Continue'] } },
      required: ['continue'],
    });
    client.reply(ask.id, { action: 'accept', content: { continue: 'Continue' } });
    expect(textOf(await client.response(34))).toBe('confirmed: accept');
    expect(await client.lastInputResponses(trace, 2)).toEqual({ confirm: { action: 'accept', content: {} } });
  });

  it('sampling: the request goes to the client as given, and its answer goes upstream', async () => {
    const trace = client.call(40, 'ask_sample');
    const ask = await client.asked('sampling/createMessage');
    expect(paramsOf(ask)).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello.' } }],
      maxTokens: 50,
    });
    client.reply(ask.id, SAMPLED);
    expect(textOf(await client.response(40))).toBe('model: Hi.');
    expect(await client.lastInputResponses(trace, 2)).toEqual({ model: SAMPLED });
  });

  it('roots: only file URIs go upstream, with their names', async () => {
    const trace = client.call(41, 'ask_roots');
    const ask = await client.asked('roots/list');
    const cwd = { uri: new URL(`file://${process.cwd()}/`).href, name: 'main' };
    client.reply(ask.id, {
      roots: [cwd, { uri: 'vscode-vfs://github/o/r' }, { uri: 'untitled:Untitled-1' }],
    });
    expect(textOf(await client.response(41))).toBe(`roots: ${cwd.uri}`);
    expect(await client.lastInputResponses(trace, 2)).toEqual({ roots: { roots: [cwd] } });
  });

  it('sampling with tools to a client without sampling.tools: the fixture refuses it with -32021, which passes unchanged, and nothing is sent', async () => {
    // The upstream sees the translated capabilities and refuses first (docs/input-rounds.md#input-undeclared).
    const from = client.peer.lines.length;
    const trace = client.call(42, 'sample_tools');
    const response = await client.response(42);
    expect(response.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: { tools: {} } } },
    });
    expect(framesSince(client.peer, from)).toEqual([response]);
    await client.upstreamStopsAt(trace, 1);
  });

  it('the round cap: the tenth input_required result fails with too_many_rounds', async () => {
    const trace = client.call(50, 'never_stops');
    const asked: unknown[] = [];
    for (let round = 1; round < 10; round++) {
      const ask = await client.asked();
      asked.push(paramsOf(ask).message);
      client.reply(ask.id, { action: 'accept', content: { answer: `answer ${round}` } });
    }
    const response = await client.response(50);
    expect(response.error).toEqual(bridgeFailure('too_many_rounds', '10 rounds, limit: 10'));
    expect(asked).toEqual(Array.from({ length: 9 }, (_, i) => `Question ${i + 1}.`));
    await client.upstreamStopsAt(trace, 10);
  });

  it('the per-round cap: 17 input requests in one round fail with too_many_input_requests, and nothing is sent', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(51, 'many_inputs');
    const response = await client.response(51);
    expect(response.error).toEqual(
      bridgeFailure('too_many_input_requests', '17 input requests in one round, limit: 16'),
    );
    expect(framesSince(client.peer, from)).toEqual([response]);
    await client.upstreamStopsAt(trace, 1);
  });

  it('an elicitation answer with an unknown action fails with invalid_client_answer', async () => {
    const trace = client.call(60, 'ask_form');
    client.reply((await client.asked()).id, { action: 'maybe' });
    expect((await client.response(60)).error).toEqual(
      bridgeFailure(
        'invalid_client_answer',
        "input request 'profile': the elicitation result does not have the shape of the schema",
      ),
    );
    await client.upstreamStopsAt(trace, 1);
  });

  it.each([
    ['a wrong type', { action: 'accept', content: { name: 'Ada', age: 'old' } }],
    ['a value outside the enum', { action: 'accept', content: { name: 'Ada', color: 'pink' } }],
    ['no content', { action: 'accept' }],
  ])(
    'accepted content that is not valid against the requestedSchema (%s) fails with invalid_client_answer, and nothing goes upstream',
    async (_, answer) => {
      const id = `invalid-${++invalidAnswers}`;
      const trace = client.call(id, 'ask_form');
      client.reply((await client.asked()).id, answer);
      expect((await client.response(id)).error).toEqual(
        bridgeFailure(
          'invalid_client_answer',
          "input request 'profile': the accepted content is not valid against the requestedSchema",
        ),
      );
      await client.upstreamStopsAt(trace, 1);
    },
  );

  it('answers with an unknown b-99, a numeric id (also the id of the call) or another string id get no output and resolve nothing', async () => {
    const from = client.peer.lines.length;
    client.call(62, 'ask_form');
    const ask = await client.asked();
    const accept = { action: 'accept', content: { name: 'Mallory' } };
    for (const id of ['b-99', 62, 0, 'x-1']) client.reply(id, accept);
    client.peer.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
    const barrier = await client.barrier();
    // Only the bridge request and the ping response: the answers were dropped silently.
    expect(framesSince(client.peer, from).map((frame) => frame.id)).toEqual([ask.id, barrier]);
    client.reply(ask.id, { action: 'accept', content: { name: 'Ada' } });
    expect(textOf(await client.response(62))).toBe('form: accept {"name":"Ada"}');
  });

  // docs/lines.md#lines-client-responses: answers with ids no bridge request has are dropped without output.
  it('3: answers with a null or a fractional id get no output', async () => {
    const from = client.peer.lines.length;
    for (const id of [null, 1.5]) client.reply(id, { action: 'accept' });
    const barrier = await client.barrier();
    expect(framesSince(client.peer, from).map((frame) => frame.id)).toEqual([barrier]);
  });

  it('a duplicate answer and a late answer are dropped', async () => {
    const trace = client.call(63, 'ask_form');
    const ask = await client.asked();
    client.together(
      { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } },
      { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Bob' } } },
    );
    const result = await client.response(63);
    expect(textOf(result)).toBe('form: accept {"name":"Ada"}');
    const from = client.peer.lines.length;
    client.reply(ask.id, { action: 'decline' });
    const barrier = await client.barrier();
    expect(framesSince(client.peer, from).map((frame) => frame.id)).toEqual([barrier]);
    await client.upstreamStopsAt(trace, 2);
  });

  it('a bad line with a b- id resolves its request: a form gets cancel, a sampling fails with invalid_client_answer', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(64, 'ask_form');
    const form = await client.asked();
    client.peer.send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(form.id)},"result":{"action":"accept","content":`,
    );
    expect(textOf(await client.response(64))).toBe('form: cancel');
    expect(await client.lastInputResponses(trace, 2)).toEqual({ profile: { action: 'cancel' } });
    // A lone surrogate escape is not valid JSON for the bridge (JSON.parse would accept it).
    client.call(69, 'ask_form');
    const surrogate = await client.asked();
    client.peer.send(
      `{"jsonrpc":"2.0","id":${JSON.stringify(surrogate.id)},"result":{"action":"accept","content":{"name":"\\ud800"}}}`,
    );
    expect(textOf(await client.response(69))).toBe('form: cancel');
    client.call(65, 'ask_sample');
    const sampling = await client.asked('sampling/createMessage');
    client.peer.send(`{"jsonrpc":"2.0","id":${JSON.stringify(sampling.id)},"result":[}`);
    expect((await client.response(65)).error).toEqual(
      bridgeFailure(
        'invalid_client_answer',
        "input request 'model': the answer of the client is not a valid message",
      ),
    );
    // No error response for either bad line.
    expect(framesSince(client.peer, from).filter((frame) => 'error' in frame && frame.id !== 65)).toEqual([]);
  });

  it('a client error to an elicitation gives the upstream cancel, and the call goes on', async () => {
    const trace = client.call(66, 'ask_form');
    client.peer.send({
      jsonrpc: '2.0',
      id: (await client.asked()).id,
      error: { code: -32603, message: 'Unknown error' },
    });
    expect(textOf(await client.response(66))).toBe('form: cancel');
    expect(await client.lastInputResponses(trace, 2)).toEqual({ profile: { action: 'cancel' } });
  });

  it('a client error to a sampling fails the call with that error verbatim, and nothing goes upstream', async () => {
    const trace = client.call(67, 'ask_sample');
    client.peer.send({
      jsonrpc: '2.0',
      id: (await client.asked('sampling/createMessage')).id,
      error: DENIED,
    });
    expect((await client.response(67)).error).toEqual(DENIED);
    await client.upstreamStopsAt(trace, 1);
  });

  it('a client error to a roots request fails the call with that error verbatim, and nothing goes upstream', async () => {
    const trace = client.call(68, 'ask_roots');
    const failure = { code: -32603, message: 'Unknown error: no workspace' };
    client.peer.send({ jsonrpc: '2.0', id: (await client.asked('roots/list')).id, error: failure });
    expect((await client.response(68)).error).toEqual(failure);
    await client.upstreamStopsAt(trace, 1);
  });

  it('a client cancel during a wait sends notifications/cancelled for each outstanding b- id, and no response', async () => {
    const from = client.peer.lines.length;
    client.call(70, 'multi');
    const form = await client.asked('elicitation/create');
    const roots = await client.asked('roots/list');
    client.peer.send(note('notifications/cancelled', { requestId: 70, reason: 'the user stopped the chat' }));
    const first = await client.barrier();
    // A late answer after the cancel is dropped too.
    // The ping after it is the sentinel: the bridge handles the answer before the ping.
    client.reply(form.id, { action: 'accept', content: { name: 'Ada' } });
    const second = await client.barrier();
    expect(framesSince(client.peer, from)).toEqual([
      form,
      roots,
      note('notifications/cancelled', { requestId: form.id, reason: CANCELED_BY_CLIENT }),
      note('notifications/cancelled', { requestId: roots.id, reason: CANCELED_BY_CLIENT }),
      { jsonrpc: '2.0', id: first, result: {} },
      { jsonrpc: '2.0', id: second, result: {} },
    ]);
  });

  it('a client cancel cancels only the bridge requests the client has not answered', async () => {
    const from = client.peer.lines.length;
    client.call(75, 'multi');
    const form = await client.asked('elicitation/create');
    const roots = await client.asked('roots/list');
    client.reply(roots.id, { roots: [] });
    client.peer.send(note('notifications/cancelled', { requestId: 75 }));
    const barrier = await client.barrier();
    expect(framesSince(client.peer, from)).toEqual([
      form,
      roots,
      note('notifications/cancelled', { requestId: form.id, reason: CANCELED_BY_CLIENT }),
      { jsonrpc: '2.0', id: barrier, result: {} },
    ]);
  });

  it('a client cancel during the retry round sends nothing to the client, and the upstream gets the cancellation', async () => {
    const trace = client.call(71, 'ask_form');
    const ask = await client.asked();
    const from = client.peer.lines.length;
    // The answer and the cancel in one write: the retry is on its way upstream when the cancel comes.
    client.together(
      { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } },
      note('notifications/cancelled', { requestId: 71 }),
    );
    const [, retry] = await client.upstreamRounds(trace, 2);
    const cancels = await untilUpstream(
      client.peer,
      '>',
      (frame) => frame.method === 'notifications/cancelled' && paramsOf(frame).requestId === retry!.id,
    );
    expect(paramsOf(cancels[0]!).reason).toBe(CANCELED_BY_CLIENT);
    // Sentinels: what the upstream wrote for the retry comes before the answer of a later
    // tools/list, what the bridge wrote itself before the answer of the ping.
    client.peer.send(req('after-71', 'tools/list'));
    await client.response('after-71');
    const barrier = await client.barrier();
    expect(framesSince(client.peer, from).map((frame) => frame.id)).toEqual(['after-71', barrier]);
  });

  it('a client cancel after the result sends nothing', async () => {
    client.call(72, 'ask_form');
    client.reply((await client.asked()).id, { action: 'decline' });
    expect(textOf(await client.response(72))).toBe('form: decline');
    const from = client.peer.lines.length;
    client.peer.send(note('notifications/cancelled', { requestId: 72 }));
    const barrier = await client.barrier();
    expect(framesSince(client.peer, from).map((frame) => frame.id)).toEqual([barrier]);
  });

  it('an accepted URL gets its notifications/elicitation/complete also when the client cancels the call in a later round', async () => {
    const from = client.peer.lines.length;
    client.call(73, 'ask_url_twice');
    const url = await client.asked();
    client.reply(url.id, { action: 'accept' });
    const form = await client.asked();
    client.peer.send(note('notifications/cancelled', { requestId: 73 }));
    const barrier = await client.barrier();
    expect(framesSince(client.peer, from)).toEqual([
      url,
      form,
      note('notifications/cancelled', { requestId: form.id, reason: CANCELED_BY_CLIENT }),
      note('notifications/elicitation/complete', { elicitationId: paramsOf(url).elicitationId }),
      { jsonrpc: '2.0', id: barrier, result: {} },
    ]);
  });

  it('an accepted URL gets its notifications/elicitation/complete before the error when a later round fails', async () => {
    const from = client.peer.lines.length;
    client.call(74, 'ask_url_twice');
    const url = await client.asked();
    client.reply(url.id, { action: 'accept' });
    const form = await client.asked();
    client.reply(form.id, { action: 'later' });
    const failed = await client.response(74);
    expect(failed.error).toMatchObject({ data: { cause: 'invalid_client_answer' } });
    expect(framesSince(client.peer, from)).toEqual([
      url,
      form,
      note('notifications/elicitation/complete', { elicitationId: paramsOf(url).elicitationId }),
      failed,
    ]);
  });

  it('prompts/get with a form: the answer reaches the prompt', async () => {
    client.peer.send(req('prompt-1', 'prompts/get', { name: 'ask_name' }));
    const ask = await client.asked();
    expect(paramsOf(ask)).toMatchObject({ mode: 'form', message: 'What is your name?' });
    client.reply(ask.id, { action: 'accept', content: { name: 'Ada' } });
    expect((await client.response('prompt-1')).result).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada.' } }],
    });
  });

  it('a refused request state of tools/call becomes an isError result that says to run the tool again', async () => {
    client.call(80, 'refused_state');
    client.reply((await client.asked()).id, { action: 'accept', content: { ok: 'yes' } });
    expect((await client.response(80)).result).toEqual({
      content: [
        { type: 'text', text: refusedStateText('Invalid or expired requestState', 'Run the tool again.') },
      ],
      isError: true,
    });
    expect(
      client.peer.stderr.some((line) =>
        line.includes('request 80 (tools/call): the upstream server refused the request state'),
      ),
    ).toBe(true);
  });

  it('in a session of its own: every frame the bridge wrote is valid for 2025-11-25 with no 2026-07-28 member, and no answer of the client, URL or frame content appears on its stderr', async () => {
    // Its own bridge, so that this test passes or fails alone.
    // At debug, so that every line the bridge can write about these exchanges is checked.
    const own = await connect(VSCODE_CAPABILITIES, undefined, ['--log-level', 'debug']);
    own.call('own-form', 'ask_form');
    own.reply((await own.asked()).id, { action: 'accept', content: PROFILE });
    await own.response('own-form');
    own.call('own-decline', 'ask_form');
    own.reply((await own.asked()).id, { action: 'decline', content: { name: 'Eve' } });
    await own.response('own-decline');
    own.call('own-url', 'ask_url');
    own.reply((await own.asked()).id, { action: 'accept', content: { opened: 'Mallory' } });
    await own.response('own-url');
    own.call('own-sample', 'ask_sample');
    own.reply((await own.asked('sampling/createMessage')).id, SAMPLED);
    await own.response('own-sample');
    own.call('own-roots', 'ask_roots');
    own.reply((await own.asked('roots/list')).id, {
      roots: [{ uri: 'vscode-vfs://github/o/r' }, { uri: 'file:///etc/Bob' }],
    });
    await own.response('own-roots');
    own.call('own-multi', 'multi');
    const form = await own.asked('elicitation/create');
    const roots = await own.asked('roots/list');
    // A late second answer and an answer to an unknown id: dropped, never logged with content.
    own.reply(form.id, { action: 'accept', content: { name: 'Mallory' } });
    own.reply(roots.id, { roots: [] });
    own.reply(form.id, { action: 'accept', content: { name: 'Bob' } });
    own.reply('b-99', { action: 'accept', content: { name: 'Mallory' } });
    await own.response('own-multi');
    await own.barrier();
    const lines = own.peer.stderr.filter((line) => line.startsWith('mcp-bridge-vscode: '));
    expect(lines.length).toBeGreaterThan(0);
    for (const marker of [
      'Mallory',
      'Eve',
      'Bob',
      'Ada',
      'Hi.',
      'vscode-vfs',
      SIGN_IN_URL,
      'file:///etc',
      '"jsonrpc"',
    ]) {
      expect(lines.filter((line) => line.includes(marker))).toEqual([]);
    }
    expectValidTranscript(own.peer);
  });
});

describe('input requests to a client that declared URL elicitation and roots only', () => {
  const CAPABILITIES = { elicitation: { url: {} }, roots: {} };
  let client: Client;
  beforeAll(async () => {
    const peer = startBridge({ upstream: tapped() });
    client = new Client(peer);
    await handshakeWithToolsList(peer, CAPABILITIES);
    await peer.nextFrame(notification(TOOLS_LIST_CHANGED));
  });

  it('input kinds the client did not declare: the fixture refuses them with -32021, which passes unchanged, and nothing is sent', async () => {
    // The upstream sees the translated capabilities and refuses first (docs/input-rounds.md#input-undeclared).
    const from = client.peer.lines.length;
    const sample = client.call(1, 'ask_sample');
    const form = client.call(2, 'ask_form');
    expect((await client.response(1)).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { sampling: {} } },
    });
    expect((await client.response(2)).error).toMatchObject({ code: -32021 });
    expect(framesSince(client.peer, from).filter((frame) => 'method' in frame)).toEqual([]);
    await client.upstreamStopsAt(sample, 1);
    await client.upstreamStopsAt(form, 1);
  });

  it('a client without form mode gets the same URL with the same elicitationId in the next round, and one completion', async () => {
    const from = client.peer.lines.length;
    const trace = client.call(3, 'ask_url_twice');
    const first = await client.asked();
    // A new connection counts from b-1 again; the failed calls above sent nothing.
    expect(first.id).toBe('b-1');
    client.reply(first.id, { action: 'accept' });
    const second = await client.asked();
    expect(second.id).toBe('b-2');
    expect(paramsOf(second)).toEqual(paramsOf(first));
    expect(paramsOf(second)).toMatchObject({ mode: 'url', url: SIGN_IN_URL });
    client.reply(second.id, { action: 'accept' });
    const result = await client.response(3);
    expect(textOf(result)).toBe('url twice: accept');
    expect(framesSince(client.peer, from).slice(2)).toEqual([
      note('notifications/elicitation/complete', { elicitationId: paramsOf(first).elicitationId }),
      result,
    ]);
    expect(await client.lastInputResponses(trace, 3)).toEqual({ auth: { action: 'accept' } });
  });

  it('in a session of its own: every frame the bridge wrote is valid for 2025-11-25 and has no 2026-07-28 member', async () => {
    const own = await connect(CAPABILITIES);
    own.call('own-sample', 'ask_sample');
    expect((await own.response('own-sample')).error).toMatchObject({ code: -32021 });
    own.call('own-url', 'ask_url_twice');
    own.reply((await own.asked()).id, { action: 'accept' });
    own.reply((await own.asked()).id, { action: 'accept' });
    expect(textOf(await own.response('own-url'))).toBe('url twice: accept');
    await own.barrier();
    expectValidTranscript(own.peer);
  });
});

describe('input requests of an upstream that asks without checking, with progress in each round, to VS Code without roots', () => {
  const { roots: _roots, ...CAPABILITIES } = VSCODE_CAPABILITIES;
  let client: Client;
  beforeAll(async () => {
    const peer = startBridge({ upstream: tapped(miniUpstream()) });
    client = new Client(peer);
    await handshakeWithToolsList(peer, CAPABILITIES);
    await peer.nextFrame(notification(TOOLS_LIST_CHANGED));
  });

  it('an input kind the client did not declare fails with undeclared_input_request, and nothing is sent', async () => {
    const from = client.peer.lines.length;
    const trace = client.call('roots-1', 'ask_anyway', { kind: 'roots' });
    const response = await client.response('roots-1');
    expect(response.error).toEqual(
      bridgeFailure('undeclared_input_request', "input request 'dirs': the client did not declare roots"),
    );
    expect(framesSince(client.peer, from)).toEqual([response]);
    await client.upstreamStopsAt(trace, 1);
  });

  it('a round with a declared and an undeclared kind fails as a whole: not even the declared one is sent', async () => {
    const from = client.peer.lines.length;
    const trace = client.call('both-1', 'ask_anyway', { kind: 'form_and_roots' });
    const response = await client.response('both-1');
    expect(response.error).toEqual(
      bridgeFailure('undeclared_input_request', "input request 'dirs': the client did not declare roots"),
    );
    expect(framesSince(client.peer, from)).toEqual([response]);
    await client.upstreamStopsAt(trace, 1);
  });

  it('sampling with tools to a client without sampling.tools fails with undeclared_input_request, and nothing is sent', async () => {
    const from = client.peer.lines.length;
    const trace = client.call('tools-1', 'ask_anyway', { kind: 'sampling_tools' });
    const response = await client.response('tools-1');
    expect(response.error).toEqual(
      bridgeFailure(
        'undeclared_input_request',
        "input request 'model': sampling with tools needs sampling.tools, and the client did not declare it",
      ),
    );
    expect(framesSince(client.peer, from)).toEqual([response]);
    await client.upstreamStopsAt(trace, 1);
  });

  it('the progress token of the client spans every round, and progress passes only while it increases', async () => {
    const from = client.peer.lines.length;
    // Token 0, as the Copilot harness sends with every request.
    const trace = client.call('p-1', 'progress_rounds', {}, { progressToken: 0 });
    const first = await client.asked();
    client.reply(first.id, { action: 'accept', content: { first: 'one' } });
    const second = await client.asked();
    client.reply(second.id, { action: 'accept', content: { second: 'two' } });
    const result = await client.response('p-1');
    const progress = (value: number) =>
      note('notifications/progress', {
        progressToken: 0,
        progress: value,
        total: 3,
        message: `step ${value}`,
      });
    expect(framesSince(client.peer, from)).toEqual([
      progress(1),
      first,
      progress(2),
      second,
      progress(3),
      result,
    ]);
    expect(textOf(result)).toBe('three rounds: {"second":{"action":"accept","content":{"second":"two"}}}');
    // Upstream, each round is a new request whose progress token is its own id, and the retry
    // echoes the requestState of the round before byte for byte.
    const rounds = await client.upstreamRounds(trace, 3);
    const metaOf = (frame: Frame) => paramsOf(frame)._meta as Record<string, unknown>;
    expect(rounds.map((frame) => metaOf(frame).progressToken)).toEqual(rounds.map((frame) => frame.id));
    expect(new Set(rounds.map((frame) => frame.id)).size).toBe(3);
    expect(rounds.map((frame) => paramsOf(frame).requestState)).toEqual([undefined, 'round:2', 'round:3']);
    expect(paramsOf(rounds[1]!).inputResponses).toEqual({
      first: { action: 'accept', content: { first: 'one' } },
    });
  });

  it.each([
    ['no_message', "input request 'broken': the request does not have the shape of the schema"],
    ['unknown_method', "input request 'ping': the method is not an input request of revision 2025-11-25"],
  ])(
    'an input request that is not valid for 2025-11-25 (%s) fails with invalid_input_request, and nothing is sent',
    async (kind, detail) => {
      const from = client.peer.lines.length;
      const trace = client.call(`invalid-${kind}`, 'ask_anyway', { kind });
      const response = await client.response(`invalid-${kind}`);
      expect(response.error).toEqual(bridgeFailure('invalid_input_request', detail));
      expect(framesSince(client.peer, from)).toEqual([response]);
      await client.upstreamStopsAt(trace, 1);
    },
  );

  it('the completion of an accepted URL comes before the bridge request of the next round', async () => {
    const from = client.peer.lines.length;
    client.call('url-1', 'url_then_form');
    const url = await client.asked();
    expect(paramsOf(url)).toMatchObject({ mode: 'url', url: 'https://mini.example.com/login' });
    client.reply(url.id, { action: 'accept' });
    const form = await client.asked();
    client.reply(form.id, { action: 'accept', content: { name: 'Ada' } });
    const result = await client.response('url-1');
    expect(framesSince(client.peer, from)).toEqual([
      url,
      note('notifications/elicitation/complete', { elicitationId: paramsOf(url).elicitationId }),
      form,
      result,
    ]);
  });

  it('a refused request state of prompts/get becomes -32602 that says to send the request again', async () => {
    client.peer.send(req('prompt-1', 'prompts/get', { name: 'refused' }));
    client.reply((await client.asked()).id, { action: 'accept', content: { ok: 'yes' } });
    expect((await client.response('prompt-1')).error).toEqual({
      code: -32602,
      message: refusedStateText('Invalid or expired requestState', 'Send the request again.'),
      data: { reason: 'invalid_request_state' },
    });
  });

  it('in a session of its own: every frame the bridge wrote is valid for 2025-11-25 and has no 2026-07-28 member', async () => {
    const own = await connect(CAPABILITIES, miniUpstream());
    own.call('own-roots', 'ask_anyway', { kind: 'roots' });
    expect((await own.response('own-roots')).error).toMatchObject({
      data: { cause: 'undeclared_input_request' },
    });
    own.call('own-progress', 'progress_rounds', {}, { progressToken: 0 });
    own.reply((await own.asked()).id, { action: 'accept', content: { first: 'one' } });
    own.reply((await own.asked()).id, { action: 'accept', content: { second: 'two' } });
    await own.response('own-progress');
    own.call('own-url', 'url_then_form');
    own.reply((await own.asked()).id, { action: 'accept' });
    own.reply((await own.asked()).id, { action: 'accept', content: { name: 'Ada' } });
    await own.response('own-url');
    own.peer.send(req('own-prompt', 'prompts/get', { name: 'refused' }));
    own.reply((await own.asked()).id, { action: 'accept', content: { ok: 'yes' } });
    expect((await own.response('own-prompt')).error).toMatchObject({ code: -32602 });
    await own.barrier();
    expectValidTranscript(own.peer);
  });
});

describe('input requests when the connection ends', () => {
  it('the end of stdin during a wait cancels the bridge request before the bridge exits with code 0', async () => {
    const peer = startBridge();
    const client = new Client(peer);
    await handshake(peer);
    client.call('wait-1', 'ask_form');
    const ask = await client.asked();
    peer.closeStdin();
    const started = Date.now();
    expect(await peer.exit).toEqual({ code: 0, signal: null });
    expect(Date.now() - started).toBeLessThan(6_000);
    const frames = framesSince(peer);
    expect(frames).toContainEqual(
      note('notifications/cancelled', { requestId: ask.id, reason: 'the client closed the connection' }),
    );
    expect(frames.some((frame) => frame.id === 'wait-1')).toBe(false);
  });

  it('an upstream exit during a wait cancels the bridge request before the error response, and the bridge exits with code 1', async () => {
    const peer = startBridge();
    const client = new Client(peer);
    await handshake(peer);
    client.call('wait-2', 'ask_form');
    const ask = await client.asked();
    client.call('crash-1', 'crash', { after_ms: 50 });
    await client.response('crash-1');
    expect(await peer.exit).toEqual({ code: 1, signal: null });
    const frames = framesSince(peer);
    const cancelled = frames.findIndex(
      (frame) => frame.method === 'notifications/cancelled' && paramsOf(frame).requestId === ask.id,
    );
    const failed = frames.findIndex((frame) => frame.id === 'wait-2');
    expect(paramsOf(frames[cancelled]!).reason).toBe('the upstream server stopped');
    expect(frames[failed]!.error).toMatchObject({ code: -32603, data: { cause: 'upstream_exited' } });
    expect(cancelled).toBeLessThan(failed);
  });
});
