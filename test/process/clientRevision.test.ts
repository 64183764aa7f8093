/**
 * A client of an older revision through the built executable in front of the 2026-07-28 fixture
 * server (docs/revisions.md): it asks for 2025-06-18 in `initialize` and checks the answer as
 * strictly as the Gemini CLI's SDK does, disconnecting on any other revision; then its tools work,
 * and every line the bridge wrote to it is valid for 2025-06-18. Needs the build
 * (`npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { note, req, startBridge } from '../helpers/bridgeProcess.js';
import { killAllPeers, parseFrame, responseTo } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';
import { validateClientFrame } from '../helpers/schemas.js';

const TIMEOUT_MS = 30_000;
const REVISION = '2025-06-18';

afterAll(killAllPeers);

/** Sends a request and resolves with its response. */
async function ask(peer: RawPeer, id: number, method: string, params?: object): Promise<Frame> {
  peer.send(req(id, method, params));
  return peer.nextFrame(responseTo(id), TIMEOUT_MS);
}

/**
 * The client's `initialize`: it accepts exactly the revision it asked for and closes the
 * connection otherwise (the version check of the Gemini CLI's SDK, which knows nothing newer).
 */
async function strictInitialize(peer: RawPeer): Promise<Frame> {
  const response = await ask(peer, 1, 'initialize', {
    protocolVersion: REVISION,
    capabilities: { roots: { listChanged: true } },
    clientInfo: { name: 'gemini-cli-mcp-client', version: '0.61.0' },
  });
  const version = (response['result'] as { protocolVersion?: unknown } | undefined)?.protocolVersion;
  if (version !== REVISION) {
    peer.closeStdin();
    throw new Error(`Server's protocol version is not supported: ${String(version)}`);
  }
  peer.send(note('notifications/initialized'));
  return response;
}

describe('a 2025-06-18 client with a strict version check', () => {
  it('gets 2025-06-18, lists and calls tools, and every line it got is valid for 2025-06-18', async (context) => {
    const peer = startBridge();
    context.onTestFinished(async () => {
      peer.kill();
      await peer.exit;
    });
    const init = await strictInitialize(peer);
    expect(init['result']).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'bridge-fixture-server', version: '0.0.0' },
    });

    const list = await ask(peer, 2, 'tools/list');
    const tools = (list['result'] as { tools: { name: string }[] }).tools;
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'add', 'structured']));

    const echo = await ask(peer, 3, 'tools/call', { name: 'echo', arguments: { text: 'hello' } });
    expect(echo['result']).toEqual({ content: [{ type: 'text', text: 'hello' }] });
    const structured = await ask(peer, 4, 'tools/call', { name: 'structured', arguments: { text: 'abc' } });
    expect(structured['result']).toMatchObject({ structuredContent: { text: 'abc', length: 3 } });
    // The fixture's form needs elicitation, which this client did not declare: the upstream was
    // told so, and refuses the call itself.
    const form = await ask(peer, 5, 'tools/call', { name: 'ask_form', arguments: {} });
    expect(form['error']).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });

    peer.closeStdin();
    expect((await peer.exit).code).toBe(0);
    const methods: Record<string, string> = {
      '1': 'initialize',
      '2': 'tools/list',
      '3': 'tools/call',
      '4': 'tools/call',
      '5': 'tools/call',
    };
    const problems = peer.lines.flatMap((line, index) => {
      const frame = parseFrame(line);
      if (frame === undefined) return [`line ${index + 1} is not a JSON object`];
      const method = 'method' in frame ? undefined : methods[String(frame['id'])];
      return validateClientFrame(REVISION, frame, method).map((problem) => `line ${index + 1}: ${problem}`);
    });
    expect(problems).toEqual([]);
    expect(peer.lines.length).toBeGreaterThanOrEqual(5);
  });
});
