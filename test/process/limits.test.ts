/**
 * The in-flight limit of the built bridge (docs/requests.md#requests-in-flight, docs/requests.md#requests-in-flight): 256 requests
 * in flight; above it an immediate -32603 while the reader reads on. Needs the build
 * (`npx tsc -p tsconfig.build.json`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  bridgeErrorResponse,
  clientFrameProblems,
  handshakeWithin,
  req,
  startBridge,
} from '../helpers/bridgeProcess.js';
import { killAllPeers, parseFrame, responseTo } from '../helpers/rawPeer.js';

/** How long a start may take on a loaded machine (Node twice: the bridge and its upstream). */
const STARTUP_MS = 30_000;

const LIMIT = 256;
const BURST = 300;
const SLOW_MS = 1500;

afterAll(killAllPeers);

describe('the in-flight limit', () => {
  it('refuses exactly the requests above 256 in flight at once, and answers a ping sent after them', async ({
    onTestFinished,
  }) => {
    const bridge = startBridge();
    onTestFinished(() => bridge.kill());
    await handshakeWithin(bridge, STARTUP_MS);
    const from = bridge.lines.length;
    const ids = Array.from({ length: BURST }, (_, i) => i + 1);
    const burst = ids.map((id) =>
      JSON.stringify(req(id, 'tools/call', { name: 'slow', arguments: { ms: SLOW_MS } })),
    );
    bridge.child.stdin?.write(`${burst.join('\n')}\n`);
    bridge.send(req('after-burst', 'ping'));

    const refused = ids.slice(LIMIT);
    const answers = await Promise.all(refused.map((id) => bridge.nextFrame(responseTo(id), STARTUP_MS)));
    expect(answers).toEqual(refused.map((id) => bridgeErrorResponse(id, 'too_many_requests')));
    expect(clientFrameProblems(answers[0]!)).toEqual([]);
    expect((answers[0]!.error as { message: string }).message).toBe(
      'The connection has too many requests in flight',
    );
    expect(await bridge.nextFrame(responseTo('after-burst'), STARTUP_MS)).toEqual({
      jsonrpc: '2.0',
      id: 'after-burst',
      result: {},
    });

    // Every request within the limit ran to its end, after the refusals and the ping.
    const done = await Promise.all(ids.slice(0, LIMIT).map((id) => bridge.nextFrame(responseTo(id), 20_000)));
    expect(
      done.every(
        (frame) =>
          (frame.result as { content: { text: string }[] }).content[0]!.text === `slept ${SLOW_MS} ms`,
      ),
    ).toBe(true);
    const order = bridge.lines.slice(from).map((line) => parseFrame(line)!.id);
    const firstResult = order.findIndex((id) => typeof id === 'number' && id <= LIMIT);
    expect(order.indexOf('after-burst')).toBeLessThan(firstResult);
    expect(Math.max(...refused.map((id) => order.indexOf(id)))).toBeLessThan(firstResult);

    // The places are free again.
    bridge.send(req('again', 'tools/call', { name: 'slow', arguments: { ms: 1 } }));
    expect((await bridge.nextFrame(responseTo('again'), STARTUP_MS)).result).toEqual({
      content: [{ type: 'text', text: 'slept 1 ms' }],
    });
  });
});
