import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { decodeLines } from '../operators/decodeLines.js';
import { bytes } from '../src/testing/events.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const ping = (id: number | string) => ({ kind: 'frame', frame: { jsonrpc: '2.0', id, method: 'ping' } });

// docs/lines.md#lines-bad-line: the reader of newline-delimited JSON-RPC lines.
describe('decodeLines', () => {
  it('a frame split across chunks is one frame, and several frames in one chunk come in order', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const chunks = cold('-a-----b---c|', {
        a: bytes('{"jsonrpc":"2.0","id":1,'),
        b: bytes('"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n{"jsonrpc":"2.0",'),
        c: bytes('"id":3,"method":"ping"}\n'),
      });
      expectObservable(chunks.pipe(decodeLines())).toBe('-------(12)3|', {
        1: ping(1),
        2: ping(2),
        3: ping(3),
      });
    });
  });

  it('blank lines of spaces and tabs and a trailing carriage return are skipped', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const chunks = cold('-a-b|', {
        a: bytes('\n \t \n\r\n{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n'),
        b: bytes('\t\n'),
      });
      expectObservable(chunks.pipe(decodeLines())).toBe('-1--|', { 1: ping(1) });
    });
  });

  it('a bad line is a value with the id recovered from its bytes, never a stream error', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const chunks = cold('-a-----b----|', {
        a: bytes('{"jsonrpc":"2.0","id":"x1","method":\n{"jsonrpc":"1.0","id":7,"method":"ping"}\n'),
        b: bytes('[[[1]]]\n{"jsonrpc":"2.0","id":4,"method":"ping"}\n'),
      });
      expectObservable(chunks.pipe(decodeLines({ maxDepth: 2 }))).toBe('-(pi)--(d4)-|', {
        p: { kind: 'bad', id: 'x1', cause: 'parse_error' },
        i: { kind: 'bad', id: 7, cause: 'invalid_request_shape' },
        d: { kind: 'bad', id: null, cause: 'too_deep', detail: 'limit: 2 levels' },
        4: ping(4),
      });
    });
  });

  it('a line longer than maxLineBytes is line_too_long with the id from its first or last 256 bytes', () => {
    const pad = 'x'.repeat(2000);
    scheduler().run(({ cold, expectObservable }) => {
      const chunks = cold('-ab-----c----|', {
        // The id first, then a long pad, in two chunks; then one with the id last.
        a: bytes(`{"jsonrpc":"2.0","id":"first","method":"ping","params":{"pad":"${pad}`),
        b: bytes(`"}}\n`),
        c: bytes(
          `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${pad}"},"id":"last"}\n{"jsonrpc":"2.0","id":5,"method":"ping"}\n`,
        ),
      });
      expectObservable(chunks.pipe(decodeLines({ maxLineBytes: 1000 }))).toBe('--f-----(l5)-|', {
        f: { kind: 'bad', id: 'first', cause: 'line_too_long', detail: 'limit: 1000 bytes' },
        l: { kind: 'bad', id: 'last', cause: 'line_too_long', detail: 'limit: 1000 bytes' },
        5: ping(5),
      });
    });
  });

  it('an unterminated last line is decoded at the end of input', () => {
    scheduler().run(({ cold, expectObservable }) => {
      const chunks = cold('-a--|', {
        a: bytes('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}'),
      });
      expectObservable(chunks.pipe(decodeLines())).toBe('-1--(2|)', { 1: ping(1), 2: ping(2) });
    });
  });

  it('a chunk that arrives while the lines of an earlier chunk are emitted waits its turn', () => {
    const input = new Subject<Uint8Array>();
    const seen: unknown[] = [];
    input.pipe(decodeLines()).subscribe((inbound) => {
      const id = inbound.kind === 'frame' && 'id' in inbound.frame ? inbound.frame.id : undefined;
      seen.push(id);
      // A reader that feeds the decoder again from inside its own output (a loopback).
      if (id === 1) input.next(bytes('{"jsonrpc":"2.0","id":3,"method":"ping"}\n'));
    });
    input.next(bytes('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n'));
    input.complete();
    expect(seen).toEqual([1, 2, 3]);
  });

  describe('checks of the configuration', () => {
    it('refuses a line limit or a depth below one when it is built', () => {
      expect(() => decodeLines({ maxLineBytes: 0 })).toThrow(RangeError);
      expect(() => decodeLines({ maxDepth: 0 })).toThrow(RangeError);
    });
  });
});
