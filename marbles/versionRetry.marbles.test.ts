import { Observable, Subscription, defer, of } from 'rxjs';
import type { Observer } from 'rxjs';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { retryRefusedVersion } from '../operators/retryRefusedVersion.js';
import type { ErrorFrame } from '../src/protocol/jsonrpc.js';
import { sequence, notificationEvent, responseEvent } from '../src/testing/events.js';
import { errWith, progress, res } from '../src/testing/frames.js';
import { createProtocolScheduler } from '../src/testing/scheduler.js';
import { unhandledErrorsOf } from './unhandledErrors.js';

const scheduler = (): TestScheduler =>
  createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

const refusal = (supported: string[]): ErrorFrame =>
  errWith(1, -32022, 'Unsupported protocol version', { supported, requested: '2026-07-28' });

// One upstream exchange (inbound, lower case): p progress, r result, x -32022 listing 2026-07-28,
// y -32022 listing other versions only, e another error.
const v = {
  p: notificationEvent(progress(1, 1)),
  r: responseEvent(res(1, { resultType: 'complete' })),
  x: responseEvent(refusal(['2025-11-25', '2026-07-28'])),
  y: responseEvent(refusal(['2025-11-25'])),
  e: responseEvent(errWith(1, -32601, 'Method not found')),
};
type Event = (typeof v)[keyof typeof v];

// docs/lifecycle.md#lifecycle-initialize step 3, docs/errors.md#errors-upstream-codes.
describe('retryRefusedVersion', () => {
  it('events pass unchanged, and the output ends as the source ends', () => {
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<Event>('-p-r|', v).pipe(retryRefusedVersion())).toBe('-p-r|', v);
      const lost = new Error('lost');
      expectObservable(cold<Event>('-p-#', v, lost).pipe(retryRefusedVersion())).toBe('-p-#', v, lost);
    });
  });

  it('a -32022 that lists 2026-07-28 is not emitted: the source is unsubscribed and subscribed once more', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold<Event>('-p-x-|', v);
      const second = cold<Event>('  -p-r|', v);
      expectObservable(sequence([first, second]).pipe(retryRefusedVersion())).toBe('-p--p-r|', v);
      expectSubscriptions(first.subscriptions).toBe('^--!');
      expectSubscriptions(second.subscriptions).toBe('---^---!');
    });
  });

  it('a second refusal passes as the response, and the source is not subscribed a third time', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const exchange = cold<Event>('--x|', v);
      expectObservable(exchange.pipe(retryRefusedVersion())).toBe('----x|', v);
      expectSubscriptions(exchange.subscriptions).toBe(['^-!', '--^--!']);
    });
  });

  it('a -32022 without 2026-07-28 and any other error response pass unchanged', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const other = cold<Event>('-y|', v);
      const failed = cold<Event>('-e|', v);
      expectObservable(other.pipe(retryRefusedVersion())).toBe('-y|', v);
      expectObservable(failed.pipe(retryRefusedVersion())).toBe('-e|', v);
      expectSubscriptions(other.subscriptions).toBe('^-!');
      expectSubscriptions(failed.subscriptions).toBe('^-!');
    });
  });

  it('a refusal during the subscription of the source is retried too', () => {
    scheduler().run(({ cold, expectObservable }) => {
      // An in-memory upstream answers during subscribe(): the first subscription is over before
      // subscribe() returns.
      const second = cold<Event>('-r|', v);
      expectObservable(sequence([of(v.x), second]).pipe(retryRefusedVersion())).toBe('-r|', v);
    });
  });

  it('onRetry gets the refusal before the source is subscribed again', () => {
    const log: string[] = [];
    scheduler().run(({ cold, expectObservable }) => {
      const exchanges = [cold<Event>('-x|', v), cold<Event>('-r|', v)];
      let n = 0;
      const source = defer(() => {
        log.push(`subscribe ${n + 1}`);
        return exchanges[n++]!;
      });
      const retried = source.pipe(
        retryRefusedVersion({ onRetry: (frame) => log.push(`retry after ${frame.error.code}`) }),
      );
      expectObservable(retried).toBe('--r|', v);
    });
    expect(log).toEqual(['subscribe 1', 'retry after -32022', 'subscribe 2']);
  });

  it('a throw of onRetry errors the output with what it threw, and the source is not subscribed again', () => {
    const broken = new Error('a bug in onRetry');
    const onRetry = (): void => {
      throw broken;
    };
    const unhandled = unhandledErrorsOf(() => {
      scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const exchange = cold<Event>('-p-x|', v);
        expectObservable(exchange.pipe(retryRefusedVersion({ onRetry }))).toBe('-p-#', v, broken);
        expectSubscriptions(exchange.subscriptions).toBe('^--!');
        // The same during the subscription of the source.
        expectObservable(of(v.x).pipe(retryRefusedVersion({ onRetry }))).toBe('#', v, broken);
      });
    });
    expect(unhandled).toEqual([]);
  });

  it('unsubscribing the output after a retry unsubscribes the second subscription of the source', () => {
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = cold<Event>('-x|', v);
      const second = cold<Event>(' ---r|', v);
      expectObservable(sequence([first, second]).pipe(retryRefusedVersion()), '^--!').toBe('---', v);
      expectSubscriptions(first.subscriptions).toBe('^!');
      expectSubscriptions(second.subscriptions).toBe('-^-!');
    });
  });

  it('the observer it gives the source works when its functions are called unbound', () => {
    // A source (an Observable subclass, as its type allows) that takes the observer apart: the
    // first subscription is refused, the second one answers.
    let subscriptions = 0;
    const source = new Observable<Event>();
    source.subscribe = ((observer: Partial<Observer<Event>>) => {
      const { next, complete } = observer;
      subscriptions += 1;
      next?.(subscriptions === 1 ? v.x : v.r);
      complete?.();
      return new Subscription();
    }) as typeof source.subscribe;
    const events: Event[] = [];
    let completed = false;
    source.pipe(retryRefusedVersion()).subscribe({
      next: (event) => events.push(event),
      complete: () => (completed = true),
    });
    expect(events).toEqual([responseEvent(res(1, { resultType: 'complete' }))]);
    expect(completed).toBe(true);
    expect(subscriptions).toBe(2);
  });
});
