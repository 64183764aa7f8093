/**
 * composeRouted (docs/serve.md#serve-routing): `compose` sees plain frames; each frame it returns
 * carries the origin of the bridge frame in whose delivery it came out; a frame it returns later
 * has none.
 */
import { describe, expect, it } from 'vitest';
import { delay, filter, map, mergeMap, of } from 'rxjs';
import type { Observable, OperatorFunction } from 'rxjs';
import { composeRouted } from '../../src/node/composeRouted.js';
import type { RoutedFrame } from '../../src/ports/routedFrame.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { createProtocolScheduler } from '../../src/testing/scheduler.js';

const scheduler = () => createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

const progress = (n: number): Frame => ({
  jsonrpc: '2.0',
  method: 'notifications/progress',
  params: { progressToken: 't', progress: n },
});
const log: Frame = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };

/** A bridge that ignores its input and emits `frames$`. */
const bridgeOf =
  (frames$: Observable<RoutedFrame>): OperatorFunction<Inbound, RoutedFrame> =>
  () =>
    frames$;

describe('composeRouted', () => {
  it('gives a copied frame the origin of the frame it was copied from', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const frames$ = cold<RoutedFrame>('-a-b-c|', {
        a: { frame: progress(1), origin: 7 },
        b: { frame: log, origin: undefined },
        c: { frame: progress(2), origin: 'r-2' },
      });
      const copy = (bridge: OperatorFunction<Inbound, Frame>) => (in$: Observable<Inbound>) =>
        in$.pipe(
          bridge,
          map((frame) => ({ ...frame })),
        );
      expectObservable(of<Inbound>().pipe(composeRouted(bridgeOf(frames$), copy))).toBe('-a-b-c|', {
        a: { frame: progress(1), origin: 7 },
        b: { frame: log, origin: undefined },
        c: { frame: progress(2), origin: 'r-2' },
      });
    });
  });

  it('gives frames that compose adds in the same delivery that origin, and none to a frame it delays', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const frames$ = cold<RoutedFrame>('-a------|', { a: { frame: progress(1), origin: 3 } });
      const twiceThenLate = (bridge: OperatorFunction<Inbound, Frame>) => (in$: Observable<Inbound>) =>
        in$.pipe(
          bridge,
          filter((frame) => 'method' in frame),
          mergeMap((frame) => [frame, log, { ...frame, late: true }]),
          mergeMap((frame) => ('late' in frame ? of(progress(9)).pipe(delay(4)) : of(frame))),
        );
      expectObservable(of<Inbound>().pipe(composeRouted(bridgeOf(frames$), twiceThenLate))).toBe(
        '-(ab)c--|',
        {
          a: { frame: progress(1), origin: 3 },
          b: { frame: log, origin: 3 },
          c: { frame: progress(9), origin: undefined },
        },
      );
    });
  });

  it('without compose is the routed bridge itself', () => {
    const routed = bridgeOf(of<RoutedFrame>());
    expect(composeRouted(routed, undefined)).toBe(routed);
  });
});
