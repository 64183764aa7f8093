/**
 * `flatRoute` (src/embed/flatRoute.ts): the per-line flattening of embedded mode behaves as
 * `concatMap` of an array, also on re-entry.
 */
import { Subject, throwError } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { flatRoute } from '../../src/embed/flatRoute.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('flatRoute', () => {
  it('emits the values of each source value in order, none for an empty route, and ends with the source', () => {
    scheduler().run(({ hot, expectObservable }) => {
      const route = (value: string): string[] => (value === 'a' ? ['x', 'y'] : []);
      expectObservable(hot('-a--b-|').pipe(flatRoute(route))).toBe('-(xy)-|');
    });
  });

  it('a value that arrives while the values of another are emitted waits for them', () => {
    const source = new Subject<string>();
    const seen: string[] = [];
    source.pipe(flatRoute((value: string) => [`${value}1`, `${value}2`])).subscribe((value) => {
      seen.push(value);
      if (value === 'a1') source.next('b'); // re-entry while a2 is still to come
    });
    source.next('a');
    expect(seen).toEqual(['a1', 'a2', 'b1', 'b2']);
  });

  it('a throw of the route and an error of the source are the error of the output', () => {
    scheduler().run(({ hot, expectObservable }) => {
      const route = (value: string): string[] => {
        if (value === 'b') throw new Error('bad');
        return [value];
      };
      expectObservable(hot('-a-b-c-|').pipe(flatRoute(route))).toBe('-a-#', undefined, new Error('bad'));
      expectObservable(
        throwError(() => new Error('source')).pipe(flatRoute((value: string) => [value])),
      ).toBe('#', undefined, new Error('source'));
    });
  });
});
