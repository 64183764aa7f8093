/**
 * The short way to a pinned instance on the legacy path (src/embed/directRoute.ts): which frames
 * skip `serveStdio`, in which order, and where the answers go. The instance and the channel of
 * `serveStdio` are stand-ins that record what they get.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { JSONRPCMessage, Server, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { createDirectRoute } from '../../src/embed/directRoute.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';

interface Stage {
  readonly route: ReturnType<typeof createDirectRoute>;
  /** What the instance received, by either way. */
  readonly atInstance: unknown[];
  /** What the instance sent through the channel of `serveStdio`. */
  readonly viaChannel: unknown[];
  /** What went straight to the wire of the link. */
  readonly emitted: Frame[];
  /** The channel of `serveStdio`: its deliver and its close. */
  deliverViaEntry(frame: Frame): void;
  closeChannel(): void;
  /** The instance answers (through the transport it was connected with). */
  answer(id: number | string): Promise<void>;
}

async function stage(errors: Error[] = []): Promise<Stage> {
  const atInstance: unknown[] = [];
  const viaChannel: unknown[] = [];
  const emitted: Frame[] = [];
  const route = createDirectRoute(
    (frame) => emitted.push(frame),
    (error) => errors.push(error),
  );
  let connected: Transport | undefined;
  const instance = {
    connect: (transport: Transport): Promise<void> => {
      connected = transport;
      transport.onmessage = (message) => {
        atInstance.push(message);
        if ((message as { method?: unknown }).method === 'tools/throw')
          throw new Error('handing over failed');
      };
      return transport.start();
    },
  };
  route.watch(instance as unknown as Server);
  const channel: Transport = {
    start: () => Promise.resolve(),
    close: () => {
      channel.onclose?.();
      return Promise.resolve();
    },
    send: (message) => {
      viaChannel.push(message);
      return Promise.resolve();
    },
  };
  await instance.connect(channel);
  return {
    route,
    atInstance,
    viaChannel,
    emitted,
    deliverViaEntry: (frame) => channel.onmessage?.(frame as unknown as JSONRPCMessage),
    closeChannel: () => void channel.close(),
    answer: (id) =>
      connected!.send({ jsonrpc: '2.0', id, result: { content: [] } } as unknown as JSONRPCMessage),
  };
}

const call = (id: number, method = 'tools/call'): Frame => ({ jsonrpc: '2.0', id, method, params: {} });

/** A stage where `serveStdio` delivered one request (id 1): the connection is pinned. */
async function pinned(errors: Error[] = []): Promise<Stage> {
  const s = await stage(errors);
  expect(s.route.deliver(call(1))).toBe(false);
  s.deliverViaEntry(call(1));
  await nextTurn();
  return s;
}

describe('embedded mode: the short way to a pinned instance', () => {
  it('takes nothing before serveStdio delivered a request, nor after only server/discover', async () => {
    const s = await stage();
    expect(s.route.deliver(call(1, 'server/discover'))).toBe(false);
    s.deliverViaEntry(call(1, 'server/discover'));
    await nextTurn();
    expect(s.route.deliver(call(2))).toBe(false);
    expect(s.atInstance).toEqual([call(1, 'server/discover')]);
  });

  it('after a delivered request, a request reaches the instance at once and its answer skips the channel', async () => {
    const s = await pinned();
    expect(s.route.deliver(call(2))).toBe(true);
    expect(s.atInstance).toEqual([call(1), call(2)]);
    await s.answer(2);
    expect(s.emitted).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [] } }]);
    expect(s.viaChannel).toEqual([]);
    // The answer to the request serveStdio delivered goes through its channel.
    await s.answer(1);
    expect(s.viaChannel).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [] } }]);
    expect(s.emitted).toHaveLength(1);
  });

  it('leaves initialize, server/discover, subscriptions/listen and notifications to serveStdio', async () => {
    const s = await pinned();
    for (const method of ['initialize', 'server/discover', 'subscriptions/listen']) {
      expect(s.route.deliver(call(5, method))).toBe(false);
      await nextTurn();
    }
    expect(s.route.deliver({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })).toBe(false);
    expect(s.atInstance).toEqual([call(1)]);
  });

  it('after a frame for serveStdio, the next frames follow it until the next turn', async () => {
    const s = await pinned();
    expect(s.route.deliver(call(2, 'subscriptions/listen'))).toBe(false);
    expect(s.route.deliver(call(3))).toBe(false);
    await nextTurn();
    expect(s.route.deliver(call(4))).toBe(true);
    expect(s.atInstance).toEqual([call(1), call(4)]);
  });

  it('a cancellation forgets its request: a late answer goes through the channel', async () => {
    const s = await pinned();
    expect(s.route.deliver(call(2))).toBe(true);
    const cancel: Frame = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } };
    expect(s.route.deliver(cancel)).toBe(false);
    await s.answer(2);
    expect(s.emitted).toEqual([]);
    expect(s.viaChannel).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [] } }]);
  });

  it('takes nothing and emits nothing once the channel is closed', async () => {
    const s = await pinned();
    expect(s.route.deliver(call(2))).toBe(true);
    s.closeChannel();
    await s.answer(2);
    expect(s.emitted).toEqual([]);
    expect(s.route.deliver(call(3))).toBe(false);
    expect(s.atInstance).toEqual([call(1), call(2)]);
  });

  it('a request whose handing over throws gets -32603 Internal server error, and the error is reported', async () => {
    const errors: Error[] = [];
    const s = await pinned(errors);
    expect(s.route.deliver(call(2, 'tools/throw'))).toBe(true);
    expect(s.emitted).toEqual([
      { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'Internal server error' } },
    ]);
    expect(errors.map((error) => error.message)).toEqual(['handing over failed']);
    expect(s.route.deliver(call(3))).toBe(true);
  });
});
