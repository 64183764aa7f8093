/**
 * sessionUpstream (docs/serve.md#serve-routing): the view of the upstream for one client
 * connection names, in each exchange's options, the connection's consent port and where its log
 * messages go; with telemetry, each round of a client request has its span, ended by the round.
 */
import { NEVER, from, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { sessionUpstream } from '../../src/bridge/sessionUpstream.js';
import type { ConsentPort } from '../../src/ports/signIn.js';
import type { RoundOutcome } from '../../src/ports/telemetry.js';
import type { ExchangeEvent, ExchangeOptions, UpstreamConnection } from '../../src/ports/upstream.js';
import type { JsonObject, NotificationFrame } from '../../src/protocol/jsonrpc.js';
import { createFakeUpstream } from '../../src/testing/fakeUpstream.js';

const consentOf = (name: string): ConsentPort => ({
  phase: () => 'ready',
  clientSupportsUrl: () => name === 'url',
  askUrl: () => Promise.resolve('cancel'),
  complete: () => undefined,
});

/** An upstream that records the params and options of each exchange and answers `{}`. */
function recording(): {
  upstream: UpstreamConnection;
  seen: { params: JsonObject; options?: ExchangeOptions }[];
} {
  const seen: { params: JsonObject; options?: ExchangeOptions }[] = [];
  const upstream: UpstreamConnection = {
    request: (_method, params, options) => {
      seen.push(options === undefined ? { params } : { params, options });
      return of<ExchangeEvent>({ type: 'response', frame: { jsonrpc: '2.0', id: 1, result: {} } });
    },
    notifications$: NEVER,
    exit$: NEVER,
    remote: false,
    close: () => undefined,
  };
  return { upstream, seen };
}

const LOG: NotificationFrame = {
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: 'from the call' },
};
const PROGRESS: NotificationFrame = {
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 1, progress: 1 },
};

describe('sessionUpstream', () => {
  it("gives each exchange the connection's consent port and logs, and keeps the caller's cancel reason and trace", () => {
    const { upstream, seen } = recording();
    const logs = (): void => undefined;
    const mine = consentOf('mine');
    const cancelReason = (): string => 'why';
    const view = sessionUpstream(upstream, mine, logs);
    view.request('tools/call', { name: 'a' }, { cancelReason, trace: { round: 2, clientId: 7 } }).subscribe();
    view.request('tools/list', {}).subscribe();
    view.request('tools/list', {}, { consent: consentOf('theirs') }).subscribe();
    expect(seen).toHaveLength(3);
    expect(seen[0]!.params).toEqual({ name: 'a' });
    expect(seen[0]!.options).toEqual({ cancelReason, trace: { round: 2, clientId: 7 }, consent: mine, logs });
    expect(seen[1]!.options).toEqual({ cancelReason: undefined, trace: undefined, consent: mine, logs });
    // The connection's own port wins over one the caller named.
    expect(seen[2]!.options?.consent).toBe(mine);
  });

  it("without a sign-in, leaves the caller's consent port as it was", () => {
    const { upstream, seen } = recording();
    const theirs = consentOf('theirs');
    const view = sessionUpstream(upstream, undefined, () => undefined);
    view.request('tools/list', {}, { consent: theirs }).subscribe();
    view.request('tools/list', {}).subscribe();
    expect(seen[0]!.options?.consent).toBe(theirs);
    expect(seen[1]!.options?.consent).toBeUndefined();
  });

  it('hands a log message of an exchange to the logs of the connection, never to its subscriber', () => {
    const fake = createFakeUpstream({
      methods: {
        'tools/call': (_params, request) =>
          from<ExchangeEvent[]>([
            { type: 'notification', frame: LOG },
            { type: 'notification', frame: PROGRESS },
            { type: 'response', frame: { jsonrpc: '2.0', id: request.id, result: { content: [] } } },
          ]),
      },
    });
    const logs: NotificationFrame[] = [];
    const view = sessionUpstream(fake.connection, undefined, (frame) => logs.push(frame));
    const events: string[] = [];
    view
      .request('tools/call', { name: 'x' })
      .subscribe((event) => events.push('method' in event.frame ? event.frame.method : 'response'));
    expect(logs).toEqual([LOG]);
    expect(events).toEqual(['notifications/progress', 'response']);
  });

  it('with telemetry, ends the span of a round with its response, and of a cut round as cancelled', () => {
    const outcomes: RoundOutcome[] = [];
    const fake = createFakeUpstream({
      methods: {
        'tools/list': () => ({ tools: [] }),
        'tools/call': () => NEVER,
      },
    });
    // A span ends once, as the RoundHandle of src/ports/telemetry.ts: the first outcome counts.
    const round = (options: ExchangeOptions | undefined) => {
      if (options?.trace === undefined) return undefined;
      let ended = false;
      return {
        context: undefined,
        end: (outcome: RoundOutcome) => {
          if (!ended) outcomes.push(outcome);
          ended = true;
        },
      };
    };
    const view = sessionUpstream(fake.connection, undefined, () => undefined, round);
    view.request('tools/list', {}, { trace: { round: 1, clientId: 1 } }).subscribe();
    view.request('tools/list', {}).subscribe();
    view
      .request('tools/call', { name: 'x' }, { trace: { round: 1, clientId: 2 } })
      .subscribe()
      .unsubscribe();
    expect(outcomes).toEqual([{}, { errorType: 'cancelled' }]);
    expect(fake.requests.map((request) => request.state)).toEqual(['done', 'done', 'cancelled']);
  });
});
