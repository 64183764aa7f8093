import { map } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { encodeFrames } from '../operators/encodeFrames.js';
import type { Frame } from '../src/protocol/jsonrpc.js';
import { parseLine } from '../src/protocol/parseLine.js';

const scheduler = (): TestScheduler =>
  new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

// The stdio transport of both revisions: one frame is one line.
describe('encodeFrames', () => {
  it('each frame is exactly one line, also with newlines and carriage returns in its strings', () => {
    const frame: Frame = { jsonrpc: '2.0', id: 1, result: { text: 'a\nb\r\nc\u2028d' } };
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a|', { a: frame }).pipe(encodeFrames())).toBe('-A|', {
        A: '{"jsonrpc":"2.0","id":1,"result":{"text":"a\\nb\\r\\nc\u2028d"}}\n',
      });
    });
    let line = '';
    scheduler().run(({ cold }) => {
      cold('a|', { a: frame })
        .pipe(encodeFrames())
        .subscribe((value) => (line = value));
    });
    expect(line.split('\n')).toHaveLength(2);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toMatch(/[\r\n]/);
  });

  it('order is kept', () => {
    const frames: Record<string, Frame> = {
      a: { jsonrpc: '2.0', id: 1, result: {} },
      b: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      c: { jsonrpc: '2.0', id: 2, result: {} },
    };
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a(bc)-|', frames).pipe(encodeFrames())).toBe('-A(BC)-|', {
        A: '{"jsonrpc":"2.0","id":1,"result":{}}\n',
        B: '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n',
        C: '{"jsonrpc":"2.0","id":2,"result":{}}\n',
      });
    });
  });

  it('with rawResults, the result of a line of 1 MiB or more is pieces with its raw members', () => {
    // A 1 MiB upstream line, spelled with spaces that JSON.stringify would not write.
    const text = 'x'.repeat(1024 * 1024);
    const upstream = `{"jsonrpc":"2.0","id":"b","result":{ "content" : [ {"type":"text","text":"${text}"} ] }}`;
    const inbound = parseLine(
      { kind: 'line', bytes: new TextEncoder().encode(upstream) },
      { maxDepth: 64, maxLineBytes: 1 << 26 },
    );
    if (inbound.kind !== 'frame' || !('result' in inbound.frame)) throw new Error('not a result');
    const frames: Record<string, Frame> = {
      a: { jsonrpc: '2.0', id: 1, result: inbound.frame.result },
      b: { jsonrpc: '2.0', id: 2, result: {} },
    };
    const joined = (line: string | readonly (string | Uint8Array)[]): string =>
      typeof line === 'string'
        ? `string ${line}`
        : `pieces ${line.map((piece) => (typeof piece === 'string' ? piece : new TextDecoder().decode(piece))).join('')}`;
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b|', frames).pipe(encodeFrames({ rawResults: true }), map(joined))).toBe(
        '-A-B|',
        {
          A: `pieces {"jsonrpc":"2.0","id":1,"result":{"content" : [ {"type":"text","text":"${text}"} ]}}\n`,
          B: 'string {"jsonrpc":"2.0","id":2,"result":{}}\n',
        },
      );
    });
  });
});
