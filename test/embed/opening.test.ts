/**
 * The first-line rules of embedded mode (docs/embedded.md#embedded-selection) and `whenFirst`, which starts
 * a path only when it is selected.
 */
import { defer, map, of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { decodeLines } from '../../operators/decodeLines.js';
import { classifyOpening } from '../../src/embed/opening.js';
import { whenFirst } from '../../src/embed/whenFirst.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { createProtocolScheduler } from '../../src/testing/scheduler.js';

/** Decodes one line as serveDualEra does (line limit 128 bytes). */
function decode(line: string | Uint8Array): Inbound {
  const found: Inbound[] = [];
  const bytes = typeof line === 'string' ? Buffer.from(`${line}\n`) : line;
  of(bytes)
    .pipe(decodeLines({ maxLineBytes: 128 }))
    .subscribe((inbound) => found.push(inbound));
  return found[0] ?? { kind: 'blank' };
}

const scheduler = () => createProtocolScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('classifyOpening', () => {
  it.each([
    ['a request with the method initialize', '{"jsonrpc":"2.0","id":1,"method":"initialize"}', 'legacy'],
    [
      'initialize with a string id and params',
      '{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}',
      'legacy',
    ],
    ['server/discover', '{"jsonrpc":"2.0","id":1,"method":"server/discover"}', 'discover'],
    ['another request', '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', 'modern'],
    [
      'a method that only starts with initialize',
      '{"jsonrpc":"2.0","id":1,"method":"initialized"}',
      'modern',
    ],
    ['notifications/initialized', '{"jsonrpc":"2.0","method":"notifications/initialized"}', 'modern'],
    ['an initialize notification', '{"jsonrpc":"2.0","method":"initialize"}', 'modern'],
    ['a server/discover notification', '{"jsonrpc":"2.0","method":"server/discover"}', 'modern'],
    ['a response', '{"jsonrpc":"2.0","id":1,"result":{}}', 'modern'],
    ['malformed JSON', '{"jsonrpc":"2.0","id":1,"method":"initialize"', 'modern'],
    [
      'initialize only in a string',
      '{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"initialize"}}',
      'modern',
    ],
    ['a blank line', ' \t', 'skip'],
    [
      'a line above the line limit',
      `{"jsonrpc":"2.0","id":1,"method":"initialize","x":"${'y'.repeat(128)}"}`,
      'skip',
    ],
  ] as const)('%s gives %s', (_what, line, expected) => {
    expect(classifyOpening(decode(line))).toBe(expected);
  });

  it('invalid UTF-8 selects the modern path', () => {
    expect(classifyOpening(decode(Buffer.from([0x7b, 0xff, 0x7d, 0x0a])))).toBe('modern');
  });
});

describe('whenFirst', () => {
  it('subscribes the path at its first value and gives it every value from that one on', () => {
    const testScheduler = scheduler();
    const startedAt: number[] = [];
    testScheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('  --a-b-|');
      const expected = '    --A-B-|';
      const project = whenFirst<string, string>((values$) =>
        defer(() => {
          startedAt.push(testScheduler.now());
          return values$.pipe(map((value) => value.toUpperCase()));
        }),
      );
      expectObservable(source.pipe(project)).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe('^-----!');
    });
    expect(startedAt).toEqual([2]);
  });

  it('an empty source completes without starting the path', () => {
    scheduler().run(({ hot, expectObservable }) => {
      let started = false;
      const project = whenFirst<string, string>((values$) => {
        started = true;
        return values$;
      });
      expectObservable(hot('----|').pipe(project)).toBe('----|');
      expect(started).toBe(false);
    });
  });

  it('loses and repeats no value of a synchronous burst', () => {
    const seen: string[] = [];
    of('a', 'b', 'c')
      .pipe(whenFirst((values$) => values$.pipe(map((value) => value))))
      .subscribe((value) => seen.push(value));
    expect(seen).toEqual(['a', 'b', 'c']);
  });
});
