/**
 * Upstream misbehaviour through the built bridge, in raw lines (docs/results.md#results-shape,
 * §3.10, §9.6): results that are not valid, lines that are not JSON, and upstream errors that
 * pass unchanged, except -32042. Each test has its own scripted upstream. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import type { TestContext } from 'vitest';
import {
  bridgeErrorResponse,
  bridgeLines,
  clientFrameProblems,
  handshakeWithin,
  req,
  scripted,
  startBridge,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node twice: the bridge and its upstream). */
const STARTUP_MS = 30_000;

const echo = (id: string | number, text: string): object =>
  req(id, 'tools/call', { name: 'echo', arguments: { text } });

/** A bridge in front of a scripted mode, initialized; it dies with the test. */
async function bridgeTo(context: TestContext, mode: string): Promise<RawPeer> {
  const bridge = startBridge({ upstream: scripted(mode) });
  context.onTestFinished(() => bridge.kill());
  const initialized = await handshakeWithin(bridge, STARTUP_MS);
  expect(initialized).toHaveProperty('result');
  return bridge;
}

/** Sends a request and resolves with its response, checked against the 2025-11-25 schema. */
async function ask(bridge: RawPeer, frame: object): Promise<Frame> {
  const { id, method } = frame as { id: string | number; method: string };
  bridge.send(frame);
  const response = await bridge.nextFrame(responseTo(id), STARTUP_MS);
  expect(clientFrameProblems(response, 'result' in response ? method : undefined)).toEqual([]);
  return response;
}

// Two at a time: each test starts Node twice, on a machine of two cores.
vi.setConfig({ maxConcurrency: 2 });
afterAll(killAllPeers);

describe.concurrent('errors of the upstream', () => {
  it('turns a result with an unknown resultType into -32603 invalid_response', async (context) => {
    const bridge = await bridgeTo(context, 'unknown-result-type');
    expect(await ask(bridge, echo(1, 'x'))).toEqual(bridgeErrorResponse(1, 'invalid_response'));
    expect(await ask(bridge, echo('s', 'x'))).toEqual(bridgeErrorResponse('s', 'invalid_response'));
    expect(bridgeLines(bridge.stderr)).toContainEqual(
      expect.stringMatching(/^mcp-bridge-vscode: bridge: warning: request 1 \(tools\/call\): .*resultType/),
    );
  });

  it('drops lines of the upstream that are not JSON, and answers the next request', async (context) => {
    const bridge = await bridgeTo(context, 'garbage');
    for (const id of [0, 'g-1', 2]) {
      expect(await ask(bridge, echo(id, `text ${String(id)}`))).toEqual({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: `text ${String(id)}` }] },
      });
    }
    const dropped = (): string[] => bridgeLines(bridge.stderr).filter((line) => line.includes('not valid'));
    // stderr is another pipe than stdout: the last line may come after the last answer.
    await waitFor(() => dropped().length >= 3, {
      timeoutMs: STARTUP_MS,
      what: 'three lines about dropped upstream lines',
    });
    expect(dropped()).toHaveLength(3);
    // The log line names the kind of problem, never the line itself.
    expect(bridge.stderr.filter((line) => line.includes('this line is not JSON'))).toEqual([]);
  });

  it('passes an upstream error unchanged, with its data and without a cause', async (context) => {
    const bridge = await bridgeTo(context, 'error-with-data');
    expect(await ask(bridge, echo('e', 'x'))).toEqual({
      jsonrpc: '2.0',
      id: 'e',
      error: {
        code: -32002,
        message: 'Resource not found',
        data: { uri: 'file:///missing.txt', hint: 'kept as it is' },
      },
    });
  });

  it('turns the -32602 of a resource the SDK 2.x server does not have into -32002, with its message and data', async (context) => {
    // The fixture upstream (startBridge's default) is the SDK 2.x server: a 2026-07-28 server
    // MUST refuse an unknown resource with -32602, a 2025-11-25 client expects -32002
    // (docs/results.md#results-resources-read).
    const bridge = startBridge();
    context.onTestFinished(() => bridge.kill());
    expect(await handshakeWithin(bridge, STARTUP_MS)).toHaveProperty('result');
    const missing = await ask(bridge, req('r', 'resources/read', { uri: 'fixture://no/such/resource' }));
    expect(missing).toEqual({
      jsonrpc: '2.0',
      id: 'r',
      error: {
        code: -32002,
        message: 'Resource not found: fixture://no/such/resource',
        data: { uri: 'fixture://no/such/resource' },
      },
    });
    const other = await ask(bridge, req('t', 'tools/call', { name: 'no_such_tool', arguments: {} }));
    expect(other).toMatchObject({ jsonrpc: '2.0', id: 't', error: { code: -32602 } });
  });

  it('turns -32042 into -32603 with the same message and no data', async (context) => {
    const bridge = await bridgeTo(context, 'url-elicitation-error');
    expect(await ask(bridge, echo(0, 'x'))).toEqual({
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32603, message: 'This request needs a URL elicitation.' },
    });
    // VS Code would open every URL of the data: none reaches the client.
    expect(bridge.lines.some((line) => line.includes('https://example.com/sign-in'))).toBe(false);
  });

  it('fails a request whose upstream answer is longer than --max-line-bytes at once, and reads on', async (context) => {
    const bridge = startBridge({ bridgeArgs: ['--max-line-bytes', '1000'] });
    context.onTestFinished(() => bridge.kill());
    await handshakeWithin(bridge, STARTUP_MS);
    // The list of the fixture is longer than 1000 bytes; the answer of echo is not.
    expect(await ask(bridge, req('list', 'tools/list'))).toEqual(
      bridgeErrorResponse('list', 'invalid_response', 'tools/list'),
    );
    expect((await ask(bridge, echo(0, 'short'))).result).toEqual({
      content: [{ type: 'text', text: 'short' }],
    });
  });

  it('lists a tool whose input schema is deeper than the nesting limit of client lines, unchanged below 64 levels', async (context) => {
    const bridge = await bridgeTo(context, 'deep-schema');
    const listed = await ask(bridge, req('deep', 'tools/list'));
    let node = (listed.result as { tools: { inputSchema: { properties: { value: unknown } } }[] }).tools[0]!
      .inputSchema.properties.value as Record<string, unknown>;
    for (let level = 0; level < 80; level++) node = node['not'] as Record<string, unknown>;
    // The items fix walks 64 levels; the array schema below them stays as the upstream sent it.
    expect(node).toEqual({ type: 'array' });
  });

  it('strips the members of 2026-07-28 from the results of a scripted upstream, and forwards methods it does not declare', async (context) => {
    const bridge = await bridgeTo(context, 'echo');
    const listed = await ask(bridge, req('list', 'tools/list'));
    expect(listed.result).toEqual({
      tools: [
        {
          name: 'echo',
          description: 'Returns the text it gets.',
          inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
        },
      ],
    });
    expect(await ask(bridge, echo(1, 'a "quoted" text'))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'a "quoted" text' }] },
    });
    // The upstream declares no completions and no prompts; the requests still go to it, and its
    // errors come back unchanged.
    const complete = req(2, 'completion/complete', {
      ref: { type: 'ref/prompt', name: 'greet' },
      argument: { name: 'name', value: 'A' },
    });
    for (const frame of [complete, req(3, 'prompts/list'), req(4, 'resources/templates/list')]) {
      const { id } = frame as { id: number };
      expect(await ask(bridge, frame)).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32601, message: 'Method not found' },
      });
    }
  });
});
