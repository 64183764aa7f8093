/**
 * The upstream of a failed or cancelled `initialize` of a shared session
 * (docs/shared.md#shared-lifecycle), without sockets: the real bridge (createBridge) of each
 * session on views of one key's upstream (sharedUpstream) through attemptConnect, over fake
 * upstreams (createFakeUpstream), one per start.
 */
import { NEVER, Subject, defer, map, of, switchMap, take, throwError } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import { attemptConnect } from '../../src/node/sharedAttempt.js';
import { sharedUpstream } from '../../src/node/sharedUpstream.js';
import { silentLogger } from '../../src/ports/logger.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import type { ExchangeEvent, UpstreamConnection } from '../../src/ports/upstream.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';
import { createFakeUpstream, upstreamError } from '../../src/testing/fakeUpstream.js';
import type { FakeHandler, FakeUpstream } from '../../src/testing/fakeUpstream.js';

const INITIALIZE_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'client', version: '1' },
};
const initialize = (id: number): Frame => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: INITIALIZE_PARAMS,
});
const cancel = (id: number): Frame => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId: id },
});
const DISCOVER_FAILED = { code: -32601, message: 'Method not found' };
/** A -32022 that lists 2026-07-28: the bridge sends the discover once more (versionRetry.ts). */
const REFUSAL_ERROR = {
  code: -32022,
  message: 'Unsupported protocol version',
  data: { supported: ['2026-07-28'] },
};
const REFUSAL = upstreamError(REFUSAL_ERROR.code, REFUSAL_ERROR.message, REFUSAL_ERROR.data);
const NO_ANSWER: FakeHandler = () => NEVER;

/**
 * One key's upstream: each start makes a fake; the n-th `server/discover` of the key is answered
 * by `discovers[n]` (the last one for later ones; a complete result when none is given). With
 * `connect$`, each start waits for its next value.
 */
function keyUpstream(discovers: readonly FakeHandler[] = [], connect$?: Observable<void>) {
  const fakes: FakeUpstream[] = [];
  let count = 0;
  const handler: FakeHandler = (params, request) => {
    const own = discovers[Math.min(count++, discovers.length - 1)];
    return own === undefined
      ? { supportedVersions: ['2026-07-28'], capabilities: { tools: {} } }
      : own(params, request);
  };
  const start = (): Observable<UpstreamConnection> =>
    defer(() => {
      const fake = createFakeUpstream({
        tools: { echo: () => ({ content: [] }) },
        methods: { 'server/discover': handler },
      });
      fakes.push(fake);
      return of(fake.connection);
    });
  const shared = sharedUpstream(
    connect$ === undefined ? start : () => connect$.pipe(take(1), switchMap(start)),
    silentLogger,
  );
  return { shared, fakes };
}

/** One session's bridge on the key's upstream: its client lines in, its frames out. */
function session(shared: ReturnType<typeof sharedUpstream>) {
  const input = new Subject<{ kind: 'frame'; frame: Frame }>();
  const frames: Frame[] = [];
  const bridge = createBridge(
    { version: '1.0.0', fallbackName: 'fallback', limits: DEFAULT_LIMITS },
    { connect: attemptConnect(shared, (view) => view), logger: silentLogger },
  );
  const subscription = input.pipe(bridge).subscribe((frame) => frames.push(frame));
  return {
    send: (frame: Frame) => input.next({ kind: 'frame', frame }),
    answer: (id: number | string) => frames.find((frame) => 'id' in frame && frame.id === id),
    end: () => subscription.unsubscribe(),
  };
}

const errorOf = (frame: Frame | undefined): unknown =>
  (frame as { error?: JsonObject } | undefined)?.error?.['code'];

describe('the upstream of a failed or cancelled initialize of a shared session', () => {
  it('is stopped when its discover failed and no other session uses it, and the next initialize starts a new one', () => {
    const { shared, fakes } = keyUpstream([() => upstreamError(-32601, 'Method not found')]);
    const alone = session(shared);
    alone.send(initialize(1));
    expect(errorOf(alone.answer(1))).toBe(DISCOVER_FAILED.code);
    expect(fakes.map((fake) => fake.closed)).toEqual([true]);
    alone.send(initialize(2));
    expect(errorOf(alone.answer(2))).toBe(DISCOVER_FAILED.code);
    expect(fakes.map((fake) => fake.closed)).toEqual([true, true]);
  });

  it('is stopped when its initialize was cancelled and no other session uses it', () => {
    const { shared, fakes } = keyUpstream([NO_ANSWER]);
    const alone = session(shared);
    alone.send(initialize(1));
    alone.send(cancel(1));
    expect(alone.answer(1)).toBeUndefined();
    expect(fakes.map((fake) => fake.closed)).toEqual([true]);
  });

  it('is stopped when the initialize was cancelled before the upstream came, once it comes', () => {
    const arrive = new Subject<void>();
    const { shared, fakes } = keyUpstream([], arrive);
    const alone = session(shared);
    alone.send(initialize(1));
    alone.send(cancel(1));
    expect(fakes).toEqual([]);
    arrive.next();
    expect(fakes.map((fake) => fake.closed)).toEqual([true]);
    // The next initialize starts anew.
    alone.send(initialize(2));
    arrive.next();
    expect(alone.answer(2)).toHaveProperty('result');
    expect(fakes.map((fake) => fake.closed)).toEqual([true, false]);
  });

  it('starts once per initialize when the start fails: a failed connect is not taken up again', () => {
    const fail = new Subject<void>();
    let starts = 0;
    const spawnFailed = new BridgeError('spawn_failed', { detail: 'ENOENT' });
    const shared = sharedUpstream(
      () =>
        defer(() => {
          starts += 1;
          return fail.pipe(
            take(1),
            switchMap(() => throwError(() => spawnFailed)),
          );
        }),
      silentLogger,
    );
    const alone = session(shared);
    alone.send(initialize(1));
    fail.next();
    expect(errorOf(alone.answer(1))).toBe(-32603);
    expect(starts).toBe(1);
  });

  it('decides by the discover after a -32022 retry: a cancel while the retry waits stops it', () => {
    // The refusal comes later, as from a process: the retry subscribes again while it is delivered.
    const refuse = new Subject<void>();
    const later: FakeHandler = (_params, request) =>
      refuse.pipe(
        take(1),
        map((): ExchangeEvent => ({
          type: 'response',
          frame: { jsonrpc: '2.0', id: request.id, error: REFUSAL_ERROR },
        })),
      );
    const { shared, fakes } = keyUpstream([later, NO_ANSWER]);
    const alone = session(shared);
    alone.send(initialize(1));
    refuse.next();
    expect(fakes[0]!.requestsOf('server/discover')).toHaveLength(2);
    alone.send(cancel(1));
    expect(fakes.map((fake) => fake.closed)).toEqual([true]);
  });

  it('stays after an initialize that succeeded after a -32022 retry, when the session ends: the table keeps it its grace', () => {
    const { shared, fakes } = keyUpstream([
      () => REFUSAL,
      () => ({ supportedVersions: ['2026-07-28'], capabilities: {} }),
    ]);
    const alone = session(shared);
    alone.send(initialize(1));
    expect(alone.answer(1)).toHaveProperty('result');
    alone.end();
    expect(fakes.map((fake) => fake.closed)).toEqual([false]);
  });

  it('stays while another session is initialized on it: the failed one retries on the same upstream', () => {
    const { shared, fakes } = keyUpstream([
      () => ({ supportedVersions: ['2026-07-28'], capabilities: { tools: {} } }),
      () => upstreamError(-32601, 'Method not found'),
    ]);
    const warm = session(shared);
    warm.send(initialize(1));
    expect(warm.answer(1)).toHaveProperty('result');
    const failing = session(shared);
    failing.send(initialize(1));
    expect(errorOf(failing.answer(1))).toBe(DISCOVER_FAILED.code);
    failing.send(initialize(2));
    expect(errorOf(failing.answer(2))).toBe(DISCOVER_FAILED.code);
    expect(fakes.map((fake) => fake.closed)).toEqual([false]);
    warm.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    warm.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'echo', arguments: {} } });
    expect(warm.answer('call')).toHaveProperty('result');
  });

  it('stays while another session initializes on it, and stops when that one fails too', () => {
    const { shared, fakes } = keyUpstream([NO_ANSWER]);
    const first = session(shared);
    const second = session(shared);
    first.send(initialize(1));
    second.send(initialize(1));
    first.send(cancel(1));
    expect(fakes.map((fake) => fake.closed)).toEqual([false]);
    second.send(cancel(1));
    expect(fakes.map((fake) => fake.closed)).toEqual([true]);
  });
});
