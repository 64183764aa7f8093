/**
 * `notifications/resources/updated` reaches a client only for a URI it subscribed to, whatever the
 * upstream sends on the listen stream (docs/serve.md#serve-routing): under `serve` a server that
 * sends every update on every stream must not show one session the resources of another.
 */
import { Subject, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { EVERY_CAPABILITY } from '../helpers/capabilities.js';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import type { Logger } from '../../src/ports/logger.js';
import type { Frame, NotificationFrame } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';

const updated = (uri: string): NotificationFrame => ({
  jsonrpc: '2.0',
  method: 'notifications/resources/updated',
  params: { uri },
});

describe('resources/updated of a listen stream', () => {
  it('reaches the client for its subscribed URI only', () => {
    const fake = createFakeUpstream({
      serverInfo: { name: 'lax', version: '1.0.0' },
      capabilities: EVERY_CAPABILITY,
      // A lax server: both updates on every stream, whatever its filter.
      listen: { events: [updated('file:///mine'), updated('file:///theirs')] },
    });
    const silent: Logger = { log: () => undefined, enabled: () => false };
    const lines$ = new Subject<Inbound>();
    const out: Frame[] = [];
    createBridge(
      { version: '9.9.9', fallbackName: 'fake', limits: DEFAULT_LIMITS },
      { connect: () => of(fake.connection), logger: silent },
    )(lines$).subscribe((frame) => out.push(frame));
    const send = (frame: object): void => lines$.next({ kind: 'frame', frame: frame as Frame });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'file:///mine' } });
    const updates = out.filter(
      (frame) => 'method' in frame && frame.method === 'notifications/resources/updated',
    );
    expect(out).toContainEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(updates).toEqual([updated('file:///mine')]);
  });
});
