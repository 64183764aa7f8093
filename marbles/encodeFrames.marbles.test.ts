import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { encodeFrames } from '../operators/encodeFrames.js';
import type { Frame } from '../src/protocol/jsonrpc.js';

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
});
