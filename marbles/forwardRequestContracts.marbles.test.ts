/**
 * Contracts of forwardRequest with the bridge's own connection (docs/requests.md): the
 * object the caller's `meta` returns is never written into.
 */
import { NEVER, Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FORWARD_REQUEST_CONFIG, forwardRequest } from '../operators/forwardRequest.js';
import type { RoundOutput } from '../operators/driveInputRounds.js';
import { createRpcConnection } from '../src/bridge/rpcConnection.js';
import type { Logger } from '../src/ports/logger.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import type { Frame, JsonObject } from '../src/protocol/jsonrpc.js';
import type { Inbound } from '../src/protocol/parseLine.js';
import { req } from '../src/testing/frames.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';

const quiet: Logger = { enabled: () => false, log: () => undefined };

function deepFreeze<T extends object>(value: T): T {
  for (const member of Object.values(value))
    if (typeof member === 'object' && member !== null) deepFreeze(member);
  return Object.freeze(value);
}

describe('forwardRequest with createRpcConnection', () => {
  it('leaves the object meta returns unchanged (frozen) and sends a copy with the progress token', () => {
    const META = deepFreeze({ 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' } });
    const sent: Frame[] = [];
    const upstream = createRpcConnection(
      {
        inbound$: new Subject<Inbound>(),
        send: (frame) => sent.push(frame),
        exit$: NEVER,
        close: () => undefined,
      },
      quiet,
    );
    const run = forwardRequest<RoundOutput>(DEFAULT_FORWARD_REQUEST_CONFIG, {
      upstream,
      meta: () => META,
      toClient: (_request, output) => output,
      track: () => undefined,
      untrack: () => undefined,
      rounds: {
        answers$: NEVER,
        clientCapabilities: {},
        nextBridgeId: () => 'b-1',
        nextElicitationId: () => 'elicitation-1',
      },
      log: () => undefined,
    });
    createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected)).run(
      ({ expectObservable }) => {
        // Nothing answers: the request is still waiting when the subscriber leaves at frame 3.
        expectObservable(run(req(1, 'tools/list', { cursor: 'c' })), '^--!').toBe('---');
        expectObservable(run(req(2, 'tools/call', { name: 'x' })), '^--!').toBe('---');
      },
    );
    expect(META).toEqual({ 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' } });
    const params = sent
      .filter((frame) => 'method' in frame && frame.method !== 'notifications/cancelled')
      .map((frame) => (frame as { params: JsonObject }).params);
    expect(params).toEqual([
      {
        cursor: 'c',
        _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' }, progressToken: 1 },
      },
      {
        name: 'x',
        _meta: { 'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1' }, progressToken: 2 },
      },
    ]);
  });

  it('cancels an upstream that destructures cancelReason from its options and calls it unbound', () => {
    const reasons: string[] = [];
    const run = forwardRequest<RoundOutput>(DEFAULT_FORWARD_REQUEST_CONFIG, {
      upstream: {
        request: (_method, _params, options) => {
          const { cancelReason } = options ?? {};
          return new Observable<ExchangeEvent>(() => () => void reasons.push(cancelReason?.() ?? 'none'));
        },
      },
      meta: () => ({}),
      toClient: (_request, output) => output,
      track: () => undefined,
      untrack: () => undefined,
      rounds: {
        answers$: NEVER,
        clientCapabilities: {},
        nextBridgeId: () => 'b-1',
        nextElicitationId: () => 'elicitation-1',
      },
      log: () => undefined,
    });
    createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected)).run(
      ({ expectObservable }) => {
        expectObservable(run(req(1, 'tools/list')), '^--!').toBe('---');
      },
    );
    expect(reasons).toEqual(['the client canceled the request']);
  });
});
