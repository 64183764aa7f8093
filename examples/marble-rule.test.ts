/**
 * A user's marble tests, written with `mcp-bridge-sdk/testing` only: the
 * scheduler, the frame builders and the event builders. One rule per test, the title is the rule
 * (docs/style.md#style-marbles). Imported through the package name, as a user's suite does.
 */
import { map, mergeMap, timer } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Frame, Inbound } from 'mcp-bridge-sdk';
import { reopenListen } from 'mcp-bridge-sdk/operators';
import {
  createProtocolScheduler,
  errWith,
  note,
  notificationEvent,
  req,
  res,
  sequence,
} from 'mcp-bridge-sdk/testing';
import { allowTools } from './allowTools.js';

const scheduler = () => createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

/** A stand-in for the bridge: answers every request 3 frames later. */
const slowBridge: OperatorFunction<Inbound, Frame> = (inbound$) =>
  inbound$.pipe(
    mergeMap((inbound) => {
      if (inbound.kind !== 'frame') return [];
      const frame = inbound.frame;
      if (!('method' in frame) || !('id' in frame)) return [];
      const id = frame.id;
      return timer(3).pipe(map(() => res(id, { content: [] })));
    }),
  );

const call = (id: number, name: string): Inbound => ({
  kind: 'frame',
  frame: req(id, 'tools/call', { name, arguments: {} }),
});

describe('my bridge', () => {
  it('a tools/call outside the allow-list is refused in the frame it arrives, before earlier calls finish', () => {
    scheduler().run(({ hot, expectObservable }) => {
      const client = hot('  -a-b----|', { a: call(1, 'echo'), b: call(2, 'rm') });
      const expected = '    ---xA---|';
      expectObservable(client.pipe(allowTools({ tools: ['echo'] }, slowBridge))).toBe(expected, {
        A: res(1, { content: [] }),
        x: errWith(2, -32602, "The tool 'rm' is not in the allow-list of this bridge (echo)."),
      });
    });
  });

  it('a listen stream lost after its acknowledgment opens again after 0.5 s', () => {
    const ack = notificationEvent(note('notifications/subscriptions/acknowledged', {}));
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold('  -k-#', { k: ack }, new Error('connection reset'));
      const second = cold(' -k--', { k: ack });
      expectObservable(sequence([first, second]).pipe(reopenListen()), '^ 1s !').toBe('-k 502ms k', {
        k: ack,
      });
      expectSubscriptions(second.subscriptions).toBe(['503ms ^ 497ms !']);
    });
  });
});
