/**
 * The lifecycle of a client connection of the built bridge, in raw lines (docs/lifecycle.md#lifecycle-states
 * –§2.6, §9.2): what the bridge answers before initialize, the initialize result, the
 * failures of initialize and their retry, the serverInfo fallback and the Copilot harness. Needs
 * the build (`npx tsc -p tsconfig.build.json`).
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { EVERY_CAPABILITY } from '../helpers/capabilities.js';
import { NO_PROC } from '../helpers/platform.js';
import type { TestContext } from 'vitest';
import {
  VSCODE_CAPABILITIES,
  bridgeErrorResponse,
  bridgeLines,
  childPids,
  clientFrameProblems,
  initializeRequest,
  note,
  req,
  scripted,
  startBridge,
  tapped,
  upstreamFrames,
  upstreamStderr,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, notification, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node twice: the bridge and its upstream). */
const STARTUP_MS = 30_000;

const VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
/** The members of `_meta` that meta_echo returns in its structured content. */
const ECHOED_KEYS = [
  'io.modelcontextprotocol/ui',
  'io.modelcontextprotocol/protocolVersion',
  'io.modelcontextprotocol/clientInfo',
  'io.modelcontextprotocol/clientCapabilities',
  'io.modelcontextprotocol/logLevel',
];
const FIXTURE_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: EVERY_CAPABILITY,
  serverInfo: { name: 'bridge-fixture-server', version: '0.0.0' },
  instructions: 'The upstream server of the mcp-bridge-sdk tests.',
};

/** Sends a request and resolves with its response, checked against the 2025-11-25 schema. */
async function ask(
  peer: RawPeer,
  frame: object,
  method?: string,
  allow: readonly string[] = [],
): Promise<Frame> {
  peer.send(frame);
  const response = await peer.nextFrame(responseTo((frame as { id: unknown }).id), STARTUP_MS);
  expect(clientFrameProblems(response, 'result' in response ? method : undefined, allow)).toEqual([]);
  return response;
}

/** The `_meta` the upstream got, as the fixture tool meta_echo returns it. */
async function upstreamMeta(peer: RawPeer, id: string | number, meta?: object): Promise<Frame> {
  const params = { name: 'meta_echo', arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) };
  const response = await ask(peer, req(id, 'tools/call', params), 'tools/call', ECHOED_KEYS);
  return (response.result as { structuredContent: Frame }).structuredContent;
}

/** True when nothing is answered to `id` while a later ping round-trips. */
async function noAnswerTo(peer: RawPeer, id: string | number, pingId: string): Promise<boolean> {
  await ask(peer, req(pingId, 'ping'));
  return !peer.lines.some((line) => {
    const frame = JSON.parse(line) as Frame;
    return responseTo(id)(frame);
  });
}

/** A bridge of its own for one test, killed when the test ends. */
function fresh(context: TestContext, options?: Parameters<typeof startBridge>[0]): RawPeer {
  const bridge = startBridge(options);
  context.onTestFinished(() => bridge.kill());
  return bridge;
}

// Two at a time: each test starts Node twice, on a machine of two cores.
vi.setConfig({ maxConcurrency: 2 });
afterAll(killAllPeers);

describe('before initialize', () => {
  let bridge: RawPeer;
  beforeAll(() => {
    // Behind a tap: the upstream runs from the start, and the tap shows what it got.
    bridge = startBridge({ upstream: tapped() });
  });
  afterAll(() => bridge.kill());

  it('answers ping with an empty result, for numeric, string and 0 ids', async () => {
    for (const id of [1, 'p-1', 0]) {
      expect(await ask(bridge, req(id, 'ping'))).toEqual({ jsonrpc: '2.0', id, result: {} });
    }
  });

  it('answers logging/setLevel with an empty result, and an invalid level with -32602', async () => {
    expect(await ask(bridge, req(2, 'logging/setLevel', { level: 'warning' }))).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: {},
    });
    expect(await ask(bridge, req('lvl', 'logging/setLevel', { level: 'loud' }))).toEqual(
      bridgeErrorResponse('lvl', 'invalid_params'),
    );
  });

  it('answers server/discover with -32601', async () => {
    expect(await ask(bridge, req(0, 'server/discover'))).toEqual(bridgeErrorResponse(0, 'method_not_found'));
  });

  it('answers a request with the 2026-07-28 protocol version in _meta with -32601', async () => {
    expect(await ask(bridge, req(3, 'tools/list', { _meta: MODERN_META }))).toEqual(
      bridgeErrorResponse(3, 'method_not_found'),
    );
  });

  it('answers every other request with -32600 not_initialized, and sends nothing upstream', async () => {
    for (const [id, method] of [
      [4, 'tools/list'],
      ['call', 'tools/call'],
      [5, 'resources/subscribe'],
      [6, 'tasks/list'],
    ] as const) {
      expect(await ask(bridge, req(id, method, {}))).toEqual(bridgeErrorResponse(id, 'not_initialized'));
    }
    // No initialize: nothing went to the upstream process (started at once: with --shared at the
    // shim's hello). Once the fixture behind the tap runs, the tap has logged whatever reached it
    // before.
    await waitFor(() => upstreamStderr(bridge).some((line) => line.startsWith('bridge-fixture-server: ')), {
      timeoutMs: STARTUP_MS,
      what: 'the start of the upstream',
    });
    expect(upstreamFrames(bridge, '>')).toEqual([]);
  });

  it('answers no notification', async () => {
    const before = bridge.lines.length;
    bridge.send(note('notifications/initialized'));
    bridge.send(note('notifications/cancelled', { requestId: 1 }));
    bridge.send(note('notifications/roots/list_changed'));
    await ask(bridge, req(7, 'ping'));
    expect(bridge.lines).toHaveLength(before + 1);
  });
});

describe('the initialize of VS Code', () => {
  let bridge: RawPeer;
  let initialized: Frame;
  beforeAll(async () => {
    bridge = startBridge();
    bridge.send(initializeRequest(1));
    // A second initialize while the first runs, and a request that must wait for ready.
    bridge.send(initializeRequest('again'));
    bridge.send(req(2, 'tools/list'));
    initialized = await bridge.nextFrame(responseTo(1), STARTUP_MS);
    bridge.send(note('notifications/initialized'));
  });
  afterAll(() => bridge.kill());

  it('gets the result that VS Code needs, without a member of 2026-07-28', () => {
    expect(initialized).toEqual({ jsonrpc: '2.0', id: 1, result: FIXTURE_RESULT });
    expect(clientFrameProblems(initialized, 'initialize')).toEqual([]);
    const result = initialized.result as Frame;
    for (const key of ['resultType', 'ttlMs', 'cacheScope', 'supportedVersions', '_meta']) {
      expect(result).not.toHaveProperty(key);
    }
  });

  it('answers a second initialize while the first runs with -32600 already_initialized', async () => {
    const second = await bridge.nextFrame(responseTo('again'), STARTUP_MS);
    expect(second).toEqual(bridgeErrorResponse('again', 'already_initialized'));
    expect(clientFrameProblems(second)).toEqual([]);
  });

  it('answers a request sent while initialize runs with -32600 not_initialized', async () => {
    expect(await bridge.nextFrame(responseTo(2), STARTUP_MS)).toEqual(
      bridgeErrorResponse(2, 'not_initialized'),
    );
  });

  it('answers initialize after ready with -32600 already_initialized, and keeps the upstream', async () => {
    expect(await ask(bridge, initializeRequest(3))).toEqual(bridgeErrorResponse(3, 'already_initialized'));
    expect(await ask(bridge, initializeRequest('s'))).toEqual(
      bridgeErrorResponse('s', 'already_initialized'),
    );
    const listed = await ask(bridge, req(4, 'tools/list'), 'tools/list');
    expect(listed.result).toHaveProperty('tools');
  });

  it('answers server/discover after ready with -32601, and ping with an empty result', async () => {
    expect(await ask(bridge, req(0, 'server/discover'))).toEqual(bridgeErrorResponse(0, 'method_not_found'));
    expect(await ask(bridge, req(0, 'ping'))).toEqual({ jsonrpc: '2.0', id: 0, result: {} });
  });

  it('gives the upstream the clientInfo of VS Code and its capabilities without tasks', async () => {
    const meta = await upstreamMeta(bridge, 5);
    expect(meta['io.modelcontextprotocol/protocolVersion']).toBe('2026-07-28');
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({
      name: 'Visual Studio Code',
      version: '1.140.0',
    });
    expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual({
      roots: {},
      sampling: {},
      elicitation: { form: {}, url: {} },
      extensions: VSCODE_CAPABILITIES.extensions,
    });
    // No level was set on this connection.
    expect(meta).not.toHaveProperty('io.modelcontextprotocol/logLevel');
  });

  it('runs one upstream process for the connection', (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    expect(childPids(bridge.child.pid!)).toHaveLength(1);
  });
});

describe.concurrent('a failed initialize', () => {
  it('reports a legacy-only upstream with its code -32601 and discover_failed, and can be retried', async (context) => {
    const bridge = fresh(context, { upstream: scripted('legacy-only') });
    const first = await ask(bridge, initializeRequest(1));
    expect(first).toEqual(bridgeErrorResponse(1, 'discover_failed', 'Method not found', -32601));
    expect((first.error as { message: string }).message).toMatch(/not an MCP server of revision 2026-07-28/);
    // The failed attempt stops its upstream process; a retry starts a new one from scratch.
    await waitFor(() => childPids(bridge.child.pid!).length === 0, {
      what: 'the stop of the upstream',
    });
    expect(await ask(bridge, initializeRequest('retry'))).toEqual(
      bridgeErrorResponse('retry', 'discover_failed', 'Method not found', -32601),
    );
    expect(bridgeLines(bridge.stderr)).toContainEqual(expect.stringMatching(/server\/discover failed/));
  });

  it('reports an upstream command that does not start with spawn_failed, and can be retried', async (context) => {
    const bridge = fresh(context, { upstream: ['/nonexistent/mcp-server', '--flag'] });
    expect(await ask(bridge, initializeRequest(0))).toMatchObject(bridgeErrorResponse(0, 'spawn_failed'));
    expect(await ask(bridge, initializeRequest(1))).toMatchObject(bridgeErrorResponse(1, 'spawn_failed'));
    expect(await ask(bridge, req(2, 'tools/list'))).toEqual(bridgeErrorResponse(2, 'not_initialized'));
    expect(bridgeLines(bridge.stderr)).toContainEqual(
      expect.stringMatching(/^mcp-bridge-vscode: bridge: error: cannot start the upstream command: ENOENT$/),
    );
  });

  it('reports an upstream that exits before the discover result with closed, and can be retried', async (context) => {
    const bridge = fresh(context, { upstream: scripted('exit-on-discover') });
    expect(await ask(bridge, initializeRequest(1))).toEqual(
      bridgeErrorResponse(1, 'closed', 'server/discover'),
    );
    expect(await ask(bridge, initializeRequest(2))).toEqual(
      bridgeErrorResponse(2, 'closed', 'server/discover'),
    );
    // The bridge runs on: an upstream that failed initialize is no upstream loss.
    expect(bridge.child.exitCode).toBeNull();
  });

  it('reports no discover result within --discover-timeout with discover_failed, reading on meanwhile', async (context) => {
    const bridge = fresh(context, {
      bridgeArgs: ['--discover-timeout', '1'],
      upstream: scripted('no-discover'),
    });
    await ask(bridge, req(0, 'ping'));
    const started = Date.now();
    bridge.send(initializeRequest(1));
    // The reader answers while initialize waits.
    expect(await ask(bridge, req('ping', 'ping'))).toEqual({ jsonrpc: '2.0', id: 'ping', result: {} });
    expect(await ask(bridge, req(2, 'logging/setLevel', { level: 'info' }))).toHaveProperty('result');
    expect(await ask(bridge, req(3, 'tools/list'))).toEqual(bridgeErrorResponse(3, 'not_initialized'));
    expect(await bridge.nextFrame(responseTo(1), STARTUP_MS)).toEqual(
      bridgeErrorResponse(1, 'discover_failed', 'no response in 1 s'),
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    // The answers came while initialize waited, before its failure.
    const order = bridge.lines.map((line) => (JSON.parse(line) as Frame).id);
    expect(order).toEqual([0, 'ping', 2, 3, 1]);
    await waitFor(() => childPids(bridge.child.pid!).length === 0, {
      what: 'the stop of the upstream',
    });
  });

  it('reports a discover result that is not valid with invalid_response, and can be retried', async (context) => {
    const bridge = fresh(context, { upstream: scripted('bad-discover') });
    expect(await ask(bridge, initializeRequest('a'))).toEqual(
      bridgeErrorResponse('a', 'invalid_response', 'server/discover'),
    );
    expect(await ask(bridge, initializeRequest('b'))).toEqual(
      bridgeErrorResponse('b', 'invalid_response', 'server/discover'),
    );
  });

  it('gets no response when the client cancels it, and a new initialize starts over', async (context) => {
    context.skip(NO_PROC, 'this test reads the process tree or memory in /proc (test/helpers/platform.ts)');
    const bridge = fresh(context, {
      bridgeArgs: ['--discover-timeout', '1'],
      upstream: scripted('no-discover'),
    });
    bridge.send(initializeRequest(1));
    await waitFor(() => childPids(bridge.child.pid!).length === 1, {
      what: 'the start of the upstream',
    });
    bridge.send(note('notifications/cancelled', { requestId: 1, reason: 'the user gave up' }));
    // Not already_initialized: the cancelled attempt returned the state to awaiting initialize.
    expect(await ask(bridge, initializeRequest(2))).toEqual(
      bridgeErrorResponse(2, 'discover_failed', 'no response in 1 s'),
    );
    const quiet = await noAnswerTo(bridge, 1, 'after');
    expect(quiet).toBe(true);
  });
});

describe.concurrent('logging/setLevel before initialize', () => {
  it('sets the level that every upstream request carries after initialize', async (context) => {
    const bridge = fresh(context);
    expect(await ask(bridge, req(1, 'logging/setLevel', { level: 'warning' }))).toHaveProperty('result');
    expect(await ask(bridge, req(2, 'logging/setLevel', { level: 'verbose' }))).toEqual(
      bridgeErrorResponse(2, 'invalid_params'),
    );
    expect(await ask(bridge, initializeRequest(3))).toHaveProperty('result');
    const meta = await upstreamMeta(bridge, 4);
    expect(meta['io.modelcontextprotocol/logLevel']).toBe('warning');
  });
});

describe.concurrent('the serverInfo of an upstream without one', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bridge-name-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has the name of --name and the version of the bridge', async (context) => {
    const bridge = fresh(context, {
      bridgeArgs: ['--name', 'My Files'],
      upstream: scripted('no-server-info'),
    });
    const response = await ask(bridge, initializeRequest(1), 'initialize');
    expect((response.result as Frame).serverInfo).toEqual({ name: 'My Files', version: VERSION });
  });

  it('has the file name of the command without its extension when --name is not given', async (context) => {
    // The upstream command is node under another name: /tmp/…/files-server.exe.
    const command = join(dir, 'files-server.exe');
    symlinkSync(process.execPath, command);
    const [, ...args] = scripted('no-server-info');
    const bridge = fresh(context, { upstream: [command, ...args] });
    const response = await ask(bridge, initializeRequest(1), 'initialize');
    expect((response.result as Frame).serverInfo).toEqual({ name: 'files-server', version: VERSION });
  });
});

describe.concurrent('the Copilot harness', () => {
  const COPILOT_CAPABILITIES = { sampling: {}, elicitation: { form: {}, url: {} } };

  it('gets -32601 for server/discover with id 0, then initializes with id 0 and gets progress for token 0', async (context) => {
    const bridge = fresh(context);
    expect(await ask(bridge, req(0, 'server/discover', { _meta: MODERN_META }))).toEqual(
      bridgeErrorResponse(0, 'method_not_found'),
    );
    expect(await ask(bridge, req(1, 'tools/list', { _meta: MODERN_META }))).toEqual(
      bridgeErrorResponse(1, 'method_not_found'),
    );
    const init = {
      ...initializeRequest(0, COPILOT_CAPABILITIES),
      params: {
        // What the runtime sends (its initialize since CLI 1.0.25): 2025-11-25, URL elicitation.
        protocolVersion: '2025-11-25',
        capabilities: COPILOT_CAPABILITIES,
        clientInfo: { name: 'copilot-cli', version: '1.0.89' },
      },
    };
    const initialized = await ask(bridge, init, 'initialize');
    expect(initialized.result).toEqual(FIXTURE_RESULT);
    bridge.send(note('notifications/initialized'));

    const meta = await upstreamMeta(bridge, 1, { progressToken: 0 });
    expect(meta['io.modelcontextprotocol/clientInfo']).toEqual({ name: 'copilot-cli', version: '1.0.89' });
    expect(meta['io.modelcontextprotocol/clientCapabilities']).toEqual(COPILOT_CAPABILITIES);
    // The upstream gets its own request id as the token, never the client's 0.
    expect(meta['progressToken']).not.toBe(0);

    const from = bridge.lines.length;
    const call = await ask(
      bridge,
      req(2, 'tools/call', { name: 'progress', arguments: { count: 2 }, _meta: { progressToken: 0 } }),
      'tools/call',
    );
    expect(call.result).toEqual({ content: [{ type: 'text', text: 'sent 2 progress notifications' }] });
    const frames = bridge.lines.slice(from).map((line) => JSON.parse(line) as Frame);
    expect(frames.filter(notification('notifications/progress'))).toEqual(
      [1, 2].map((progress) => ({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 0, progress, total: 2, message: `Step ${progress} of 2` },
      })),
    );
  });
});
