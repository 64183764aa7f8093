/**
 * The warm `initialize` of the shared bridge (docs/shared.md#shared-warm): a shim that joins a
 * running upstream whose listen stream is open gets its `initialize` result from the known
 * `server/discover` result, with no new discover upstream, shaped for its own revision; a list
 * change on the listen stream makes the next join discover again. The scripted upstream
 * (`--mode list-changes`) logs each discover and each acknowledged listen stream to daemon.log.
 * Needs the build (`npm run build`).
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { handshakeWithin, initializeRequest, note, req, scripted } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { waitFor } from '../helpers/waitFor.js';
import { logCount, sharedPlace, startShim } from './sharedSupport.js';

const STARTUP_MS = 60_000;
const DISCOVERS = 'scripted-upstream: server/discover';
const KNOWN =
  'mcp-bridge: bridge: debug: server/discover: answered from the known result of the shared upstream';

vi.setConfig({ maxConcurrency: 1 });
afterAll(async () => {
  await killAllPeers();
});

/** The initialize result of the scripted upstream for a client of `revision`. */
const initializeResult = (revision: string) => ({
  protocolVersion: revision,
  capabilities: { tools: { listChanged: true } },
  serverInfo: { name: 'scripted', version: '0.0.0' },
});

/** A call of `tool` and its answer: the upstream wrote everything it wrote before, first. */
async function call(peer: RawPeer, id: string, tool: string): Promise<Record<string, unknown>> {
  peer.send(req(id, 'tools/call', { name: tool, arguments: { text: id } }));
  return peer.nextFrame(responseTo(id), STARTUP_MS);
}

/** `initialize` of `revision`, then `notifications/initialized`; the initialize response. */
async function join(peer: RawPeer, revision: string): Promise<Record<string, unknown>> {
  const request = initializeRequest(1) as { params: Record<string, unknown> };
  peer.send({ ...request, params: { ...request.params, protocolVersion: revision } });
  const response = await peer.nextFrame(responseTo(1), STARTUP_MS);
  peer.send(note('notifications/initialized'));
  return response;
}

describe('the warm initialize of the shared bridge', () => {
  it('answers a joining shim from the known discover result until the listen stream tells of a change', async (context) => {
    const place = sharedPlace(context);
    const shim = (): RawPeer =>
      startShim(context, place, { upstream: scripted('list-changes'), bridgeArgs: ['--log-level', 'debug'] });
    const first = shim();
    await handshakeWithin(first, STARTUP_MS);
    await waitFor(() => logCount(place, 'subscriptions/listen 1 acknowledged') === 1, {
      what: 'the listen stream of the first session',
    });
    // The upstream wrote the acknowledgment before this answer: the shared process has read it.
    await call(first, 'after-ack', 'echo');
    expect(logCount(place, DISCOVERS)).toBe(1);

    const second = shim();
    expect((await join(second, '2025-06-18'))['result']).toEqual(initializeResult('2025-06-18'));
    expect(logCount(place, DISCOVERS)).toBe(1);
    expect(second.stderr).toContain(KNOWN);
    expect(first.stderr).not.toContain(KNOWN);
    // The session that joined warm works as any other.
    expect(await call(second, 'warm', 'echo')).toMatchObject({
      result: { content: [{ type: 'text', text: 'warm' }] },
    });

    // The list change reaches the shared process before the answer of the call that made it.
    expect(await call(first, 'change', 'change')).toMatchObject({
      result: { content: [{ type: 'text', text: 'changed' }] },
    });
    const third = shim();
    expect((await join(third, '2025-11-25'))['result']).toEqual(initializeResult('2025-11-25'));
    expect(logCount(place, DISCOVERS)).toBe(2);
    expect(third.stderr).not.toContain(KNOWN);
  });

  it('discovers again when the last listen stream of the upstream ended, within its grace', async (context) => {
    const place = sharedPlace(context);
    const shim = (): RawPeer =>
      startShim(context, place, { upstream: scripted('list-changes'), bridgeArgs: ['--log-level', 'debug'] });
    const first = shim();
    await handshakeWithin(first, STARTUP_MS);
    await waitFor(() => logCount(place, 'subscriptions/listen 1 acknowledged') === 1, {
      what: 'the listen stream of the first session',
    });
    await call(first, 'after-ack', 'echo');
    // The session ends (its listen stream with it) before the shim exits; the upstream stays 30 s.
    first.closeStdin();
    expect(await first.exit).toEqual({ code: 0, signal: null });

    const next = shim();
    expect((await join(next, '2025-11-25'))['result']).toEqual(initializeResult('2025-11-25'));
    expect(logCount(place, DISCOVERS)).toBe(2);
    expect(next.stderr).not.toContain(KNOWN);
    expect(logCount(place, 'scripted-upstream: pid ')).toBe(1);
  });
});
