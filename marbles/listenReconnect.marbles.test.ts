import type { Observable } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { reopenListen } from '../operators/reopenListen.js';
import type { ListenEnd, ListenNext, ReopenListenConfig } from '../operators/reopenListen.js';
import type { ExchangeEvent } from '../src/ports/upstream.js';
import { LISTEN_ACKNOWLEDGED, TOOLS_LIST_CHANGED } from '../src/codec/listen.js';
import { BridgeError } from '../src/protocol/bridgeError.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';
import { errWith, note, res } from '../src/testing/frames.js';
import { sequence } from '../src/testing/events.js';
import { unhandledErrorsOf } from './unhandledErrors.js';

const scheduler = (): TestScheduler =>
  createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

// Upstream side of one listen exchange (inbound, lower case): k acknowledgment, t tools list
// change, c upstream notifications/cancelled naming the listen id, e listen result, x error reply.
const v: Record<string, ExchangeEvent> = {
  k: {
    type: 'notification',
    frame: note(LISTEN_ACKNOWLEDGED, { notifications: { toolsListChanged: true } }),
  },
  t: { type: 'notification', frame: note(TOOLS_LIST_CHANGED) },
  c: { type: 'notification', frame: note('notifications/cancelled', { requestId: 1 }) },
  e: { type: 'response', frame: res(1, { resultType: 'complete' }) },
  x: { type: 'response', frame: errWith(1, -32601, 'Method not found') },
};
const lost = new BridgeError('transport_failed', { detail: 'ECONNRESET' });
const http = (status: number): BridgeError => new BridgeError('transport_failed', { httpStatus: status });

/** The operator with a log that records its lines. */
function withLog(config: Partial<ReopenListenConfig> = {}): {
  lines: string[];
  op: (source: Observable<ExchangeEvent>) => Observable<ExchangeEvent>;
} {
  const lines: string[] = [];
  return { lines, op: reopenListen({ ...config, log: (level, text) => lines.push(`${level}: ${text}`) }) };
}

/** The error type of another product, which the bridge's rules do not know. */
class ProductError extends Error {
  constructor(readonly reason: 'busy' | 'gone') {
    super(reason);
  }
}
/** That product's own reaction to the end of a stream. */
const productEnd = (end: ListenEnd): ListenNext =>
  end.failed instanceof ProductError && end.failed.reason === 'busy'
    ? { kind: 'reopen', why: 'the product was busy' }
    : { kind: 'stop', why: 'the product is gone' };

// docs/notifications.md#notifications-reconnect and docs/http-upstream.md#http-listen-stream; docs/notifications.md#notifications-ending.
describe('reopenListen', () => {
  it('reopens after 0.5s, 1s, 2s while streams die young', () => {
    const { lines, op } = withLog();
    let subscribed: number[] = [];
    scheduler().run(({ cold, expectObservable, flush }) => {
      const listen = cold('       -k--#', v, lost);
      const unsub = '             ^ 4s !';
      const expected = '          -k 503ms k 1003ms k 2003ms k';
      expectObservable(listen.pipe(op), unsub).toBe(expected, v);
      flush();
      subscribed = listen.subscriptions.map((s) => s.subscribedFrame);
    });
    expect(subscribed).toEqual([0, 504, 1508, 3512]);
    expect(lines).toEqual([
      'warn: the listen stream ended: transport_failed (ECONNRESET); the next one opens in 500 ms.',
      'warn: the listen stream ended: transport_failed (ECONNRESET); the next one opens in 1 s.',
      'warn: the listen stream ended: transport_failed (ECONNRESET); the next one opens in 2 s.',
      'warn: the listen stream ended: transport_failed (ECONNRESET); the next one opens in 4 s.',
    ]);
  });

  it('a stream that lived 10 s after its ack resets the backoff to 0.5 s', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const young = [cold('-k--#', v, lost), cold('-k--#', v, lost), cold('-k--#', v, lost)];
      const old = cold('   -k 10s #', v, lost);
      const source = sequence([young[0]!, young[1]!, old, young[2]!]);
      const unsub = '      ^ 20s !';
      // Waits: 0.5 s, 1 s, then the old stream (ack at 1509, lost at 11510, lived 10 001 ms)
      // resets: 0.5 s again.
      expectObservable(source.pipe(reopenListen()), unsub).toBe('-k 503ms k 1003ms k 10501ms k', v);
      expectSubscriptions(old.subscriptions).toBe('1508ms ^ 10001ms !');
      expectSubscriptions(young[2]!.subscriptions).toBe('12010ms ^---!');
    });
  });

  it('a stream that lived less than 10 s after its ack keeps doubling the backoff', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const almost = cold('-k 9998ms #', v, lost); // ack at 1, lost at 10 000: lived 9 999 ms
      const young = cold(' -k--#', v, lost);
      const unsub = '      ^ 20s !';
      expectObservable(sequence([young, almost, young]).pipe(reopenListen()), unsub).toBe(
        '-k 503ms k 10999ms k',
        v,
      );
      expectSubscriptions(young.subscriptions).toBe(['^---!', '11504ms ^---!']);
    });
  });

  it('caps the backoff at 30 s', () => {
    let subscribed: number[] = [];
    scheduler().run(({ cold, expectObservable, flush }) => {
      const listen = cold('-k--#', v, lost);
      expectObservable(listen.pipe(reopenListen()), '^ 100s !').toBe(
        '-k 503ms k 1003ms k 2003ms k 4003ms k 8003ms k 16003ms k 30003ms k 30003ms k',
        v,
      );
      flush();
      subscribed = listen.subscriptions.map((s) => s.subscribedFrame);
    });
    const waits = subscribed.slice(1).map((frame, i) => frame - subscribed[i]! - 4);
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000]);
  });

  it('a JSON-RPC error reply stops reopening', () => {
    const { lines, op } = withLog();
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const listen = cold('  -k-t-(x|)', v);
      expectObservable(listen.pipe(op), '^ 60s !').toBe('-k-t-(x|)', v);
      expectSubscriptions(listen.subscriptions).toBe('^----!');
    });
    expect(lines).toEqual([
      'warn: the upstream server refused the listen stream (error -32601: Method not found); list changes stop.',
    ]);
  });

  it('upstream loss stops reopening', () => {
    const { lines, op } = withLog();
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const exited = cold('-k--#', v, new BridgeError('upstream_exited'));
      const closed = cold('-k--#', v, new BridgeError('closed'));
      expectObservable(exited.pipe(op), '^ 60s !').toBe('-k--|', v);
      expectObservable(closed.pipe(op), '^ 60s !').toBe('-k--|', v);
      expectSubscriptions(exited.subscriptions).toBe('^---!');
      expectSubscriptions(closed.subscriptions).toBe('^---!');
    });
    expect(lines).toEqual([]);
  });

  it('an upstream notifications/cancelled ends the stream once, like a listen result', () => {
    const { lines, op } = withLog();
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      // The three orders of docs/notifications.md#notifications-ending: cancel then result, cancel then a
      // closed stream, result alone (the exchange completes with its response).
      const cancelThenResult = cold('-kc-(e|)', v);
      const cancelThenClose = cold(' -kc-#', v, lost);
      const result = cold('          -k-(e|)', v);
      const source = sequence([cancelThenResult, cancelThenClose, result]);
      expectObservable(source.pipe(op), '^ 3s !').toBe('-k 501ms k 1001ms k-e', v);
      expectSubscriptions(cancelThenResult.subscriptions).toBe('^-!');
      expectSubscriptions(cancelThenClose.subscriptions).toBe('502ms ^-!');
      expectSubscriptions(result.subscriptions).toBe('1504ms ^--!');
    });
    expect(lines).toEqual([
      'info: the upstream server ended the listen stream; the next one opens in 500 ms.',
      'info: the upstream server ended the listen stream; the next one opens in 1 s.',
      'info: the upstream server ended the listen stream; the next one opens in 2 s.',
    ]);
  });

  it('the end of input during a backoff wait opens no stream', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const listen = cold('-k--#', v, lost);
      const eof = '        ^ 200ms !';
      expectObservable(listen.pipe(reopenListen()), eof).toBe('-k', v);
      expectSubscriptions(listen.subscriptions).toBe('^---!');
    });
  });

  it('HTTP 408, 429, 5xx except 501 and a broken 2xx stream reopen; other statuses stop', () => {
    const { lines, op } = withLog();
    scheduler().run(({ cold, expectObservable }) => {
      for (const status of [408, 429, 500, 503, 599]) {
        expectObservable(cold('--#', v, http(status)).pipe(op), '^ 600ms !').toBe('');
      }
      const broken = new BridgeError('closed', { detail: 'the response stream broke', httpStatus: 200 });
      expectObservable(cold('-k#', v, broken).pipe(op), '^ 600ms !').toBe('-k 501ms k', v);
      for (const status of [400, 404, 501]) {
        expectObservable(cold('--#', v, http(status)).pipe(op), '^ 600ms !').toBe('--|');
      }
      const accepted = new BridgeError('invalid_response', {
        detail: 'not an event stream',
        httpStatus: 202,
      });
      expectObservable(cold('--#', v, accepted).pipe(op), '^ 600ms !').toBe('--|');
    });
    expect(lines.filter((line) => line.includes('the next one opens in 500 ms'))).toHaveLength(6);
    expect(lines).toContain(
      'warn: the listen stream ended with the HTTP status 503; the next one opens in 500 ms.',
    );
    expect(lines).toContain('warn: the listen stream failed with the HTTP status 404; list changes stop.');
    expect(lines).toContain('warn: the listen stream failed with the HTTP status 501; list changes stop.');
    expect(lines).toContain('warn: the listen stream failed with the HTTP status 202; list changes stop.');
  });

  it('HTTP 401 and 403 wait for the next sign-in, or stop without one', () => {
    const { lines, op } = withLog();
    let waitingLines: string[] = [];
    scheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const signIn = hot('  ----- 5s s 10s s');
      const waiting = withLog({ signIn$: signIn });
      waitingLines = waiting.lines;
      const listen = cold(' -k--#', v, http(401));
      expectObservable(listen.pipe(waiting.op), '^ 8s !').toBe('-k 5004ms k', v);
      expectSubscriptions(listen.subscriptions).toBe(['^---!', '5005ms ^---!']);
      expectObservable(cold('-k--#', v, http(403)).pipe(op), '^ 8s !').toBe('-k--|', v);
    });
    expect(lines).toEqual(['warn: the listen stream failed with the HTTP status 403; list changes stop.']);
    expect(waitingLines).toEqual([
      'warn: the listen stream failed with the HTTP status 401; the next one opens after the next sign-in.',
      'info: a sign-in completed; the listen stream opens again.',
      'warn: the listen stream failed with the HTTP status 401; the next one opens after the next sign-in.',
    ]);
  });

  it('with failBeforeFirstAck, an end before the first ack is not reopened', () => {
    const { lines, op } = withLog({ failBeforeFirstAck: true });
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('--#', v, lost).pipe(op), '^ 60s !').toBe('--#', undefined, lost);
      expectObservable(cold('--(x|)', v).pipe(op), '^ 60s !').toBe('--(x|)', v);
      expectObservable(cold('-c-(e|)', v).pipe(op), '^ 60s !').toBe('-|');
      // After the first ack the stream reopens as usual.
      expectObservable(cold('-k-#', v, lost).pipe(op), '^ 504ms !').toBe('-k 502ms k', v);
    });
    expect(lines).toEqual([
      'warn: the listen stream ended: transport_failed (ECONNRESET); the next one opens in 500 ms.',
    ]);
  });

  it('an error type of another product is classified by the classifyEnd of the config', () => {
    const { lines, op } = withLog({ classifyEnd: productEnd });
    scheduler().run(({ cold, expectObservable }) => {
      const busy = cold('      -k--#', v, new ProductError('busy'));
      const gone = cold('      -k--#', v, new ProductError('gone'));
      expectObservable(sequence([busy, gone]).pipe(op), '^ 60s !').toBe('-k 503ms k--|', v);
      // The bridge's own rules do not know this error: they would reopen the gone product.
      const again = cold('     -k--#', v, new ProductError('gone'));
      expectObservable(again.pipe(reopenListen()), '^ 600ms !').toBe('-k 503ms k', v);
    });
    expect(lines).toEqual([
      'warn: the product was busy; the next one opens in 500 ms.',
      'warn: the product is gone; list changes stop.',
    ]);
  });

  it('the isAcknowledgment of the config tells which event starts the uptime', () => {
    const isToolsChange = (event: ExchangeEvent): boolean =>
      event.type === 'notification' && event.frame.method === TOOLS_LIST_CHANGED;
    const { op } = withLog({ failBeforeFirstAck: true, isAcknowledgment: isToolsChange });
    scheduler().run(({ cold, expectObservable }) => {
      // k is no acknowledgment here, so the end before t fails the output.
      expectObservable(cold('-k-#', v, lost).pipe(op), '^ 60s !').toBe('-k-#', v, lost);
      expectObservable(cold('-t-#', v, lost).pipe(op), '^ 504ms !').toBe('-t 502ms t', v);
    });
  });

  it('a throw of isAcknowledgment, classifyEnd or log errors the output and opens no stream after it', () => {
    const broken = new Error('a bug in isAcknowledgment');
    const isAcknowledgment = (): boolean => {
      throw broken;
    };
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const listen = cold('   -k--#', v, lost);
        // Not a lost stream: the throw is not classified, so it is never reopened.
        expectObservable(listen.pipe(reopenListen({ isAcknowledgment })), '^ 60s !').toBe('-#', v, broken);
        expectSubscriptions(listen.subscriptions).toBe('^!');
      });
    });
    expect(unhandled).toEqual([]);
  });

  // Not a rule of its own: which acknowledgment rules 2 and 3 measure the uptime from.
  describe('the uptime of a stream', () => {
    it('starts at the first acknowledgment of the stream, not at a later one', () => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const young = cold('   -k--#', v, lost);
        // Acks at 1 and 5002, lost at 10 003: 10 002 ms after the first ack, 5001 after the second.
        const twoAcks = cold(' -k 5s k 5s #', v, lost);
        const source = sequence([young, twoAcks, young]);
        // Waits 0.5 s, then the reset wait of 0.5 s again (1 s if the second ack counted).
        expectObservable(source.pipe(reopenListen()), '^ 20s !').toBe('-k 503ms k 5s k 5501ms k', v);
        expectSubscriptions(twoAcks.subscriptions).toBe('504ms ^ 10002ms !');
        expectSubscriptions(young.subscriptions).toBe(['^---!', '11007ms ^---!']);
      });
    });
  });

  // Rule 14, callback by callback; the throw of isAcknowledgment is the rule's own test.
  describe('callbacks that throw', () => {
    it('a classifyEnd that throws errors the output at the end of the stream', () => {
      const broken = new Error('a bug in classifyEnd');
      const classifyEnd = (): ListenNext => {
        throw broken;
      };
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
          const listen = cold('   -k--#', v, lost);
          expectObservable(listen.pipe(reopenListen({ classifyEnd })), '^ 60s !').toBe('-k--#', v, broken);
          expectSubscriptions(listen.subscriptions).toBe('^---!');
        });
      });
      expect(unhandled).toEqual([]);
    });

    it('a log that throws errors the output, also at the line of a sign-in', () => {
      const broken = new Error('the log is gone');
      const unhandled = unhandledErrorsOf(() => {
        scheduler().run(({ cold, hot, expectObservable }) => {
          const log = (): void => {
            throw broken;
          };
          const listen = cold('   -k--#', v, lost);
          expectObservable(listen.pipe(reopenListen({ log })), '^ 60s !').toBe('-k--#', v, broken);
          // The warning of a 401 passes; the info line of the sign-in after it throws.
          const signIn$ = hot('    ------s');
          let lines = 0;
          const infoThrows = (): void => {
            if (++lines === 2) throw broken;
          };
          const refused = cold('  -k-#', v, http(401));
          expectObservable(refused.pipe(reopenListen({ log: infoThrows, signIn$ })), '^ 60s !').toBe(
            '-k----#',
            v,
            broken,
          );
        });
      });
      expect(unhandled).toEqual([]);
    });
  });

  describe('checks of the configuration', () => {
    it('refuses a configuration it cannot follow when it is built', () => {
      expect(() => reopenListen({ initialMs: -1 })).toThrow(RangeError);
      expect(() => reopenListen({ factor: 0.5 })).toThrow(RangeError);
      expect(() => reopenListen({ maxMs: 100 })).toThrow(RangeError);
    });
  });
});
