import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recoverId } from '../../src/protocol/recoverId.js';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const head = (text: string): Uint8Array => bytes(text).subarray(0, 256);
const tail = (text: string): Uint8Array => {
  const all = bytes(text);
  return all.subarray(Math.max(0, all.length - 256));
};

describe('recoverId from the head', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"method":"x"', 7],
    ['{"id":"req-9","method":', 'req-9'],
    ['  {  "id" : -3 , "method": "x"}', -3],
    ['{"jsonrpc":"2.0","id":0}', 0],
    ['{"method":"x","params":{"a":[1,{"b":"}"}]},"id":"after"}', 'after'],
    ['{"id":"a\\"b\\u0041"}', 'a"bA'],
    ['{"\\u0069d":5,"x":1}', 5],
    ['{"jsonrpc":"2.0","id":12,"params":{"a":tru}}', 12],
  ])('finds the top-level id in %s', (line, id) => {
    expect(recoverId(head(line))).toBe(id);
  });

  it.each([
    ['a nested id only', '{"params":{"id":5},"method":"x"}'],
    ['an id in an array', '{"params":[{"id":5}],"x":1}'],
    ['a string value that looks like a member', '{"a":"\\"id\\":5,","b":1}'],
    ['a fractional id', '{"id":1.5,"method":"x"}'],
    ['an exponent id', '{"id":1e3,"method":"x"}'],
    ['a leading zero', '{"id":01,"method":"x"}'],
    ['a null id', '{"id":null,"method":"x"}'],
    ['an object id', '{"id":{},"method":"x"}'],
    ['an id cut off at the end of the bytes', '{"method":"x","id":12'],
    ['a string id cut off', '{"id":"abc'],
    ['a lone surrogate in the id', '{"id":"\\ud800"}'],
    ['a top-level array', '[{"id":1}]'],
    ['text that is not JSON', 'hello "id": 4}'],
    ['an empty line', ''],
  ])('gives null for %s', (_name, line) => {
    expect(recoverId(head(line))).toBeNull();
  });

  it('looks only at the first 256 bytes of the head', () => {
    const line = `{"method":"x","params":{"p":"${'a'.repeat(300)}"},"id":4}`;
    expect(recoverId(bytes(line))).toBeNull();
  });
});

describe('recoverId from the tail of an over-long line', () => {
  const long = (idPart: string): string =>
    `{"jsonrpc":"2.0","method":"x","params":{"p":"${'a'.repeat(2000)}"},${idPart}}`;

  it.each([
    ['"id":42', 42],
    ['"id": "req-1" ', 'req-1'],
    ['"id" : -7\n', -7],
    ['"id":"with \\" quote"', 'with " quote'],
  ])('finds a trailing %s', (idPart, id) => {
    const line = long(idPart);
    expect(recoverId(head(line), tail(line))).toBe(id);
  });

  it('prefers the top-level id of the head', () => {
    const line = `{"id":1,"params":{"p":"${'a'.repeat(2000)}"},"x":{"id":2}}`;
    expect(recoverId(head(line), tail(line))).toBe(1);
  });

  it.each([
    ['a nested trailing id', `{"params":{"p":"${'a'.repeat(2000)}","id":5}}`],
    ['a trailing id inside a string', `{"params":"${'a'.repeat(2000)} ,\\"id\\":5}"}`],
    ['a trailing member that is not id', `{"params":"${'a'.repeat(2000)}","xid":5}`],
    ['a trailing fractional id', `{"params":"${'a'.repeat(2000)}","id":5.5}`],
    ['no closing brace', `{"params":"${'a'.repeat(2000)}","id":5`],
  ])('gives null for %s', (_name, line) => {
    expect(recoverId(head(line), tail(line))).toBeNull();
  });
});

describe('recoverId properties', () => {
  const idArb = fc.oneof(fc.integer({ min: -1e12, max: 1e12 }), fc.string({ maxLength: 20 }));
  const paddingArb = fc.string({ maxLength: 400 });

  it('finds an id written first in the head, whatever follows', () => {
    fc.assert(
      fc.property(idArb, paddingArb, (id, padding) => {
        const line = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { padding } });
        fc.pre(line.indexOf('"method"') <= 250);
        expect(recoverId(head(line))).toBe(id);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('finds an id written last in the tail of a long line (the TS SDK 1.x order)', () => {
    fc.assert(
      fc.property(idArb, paddingArb, (id, padding) => {
        const line = JSON.stringify({
          jsonrpc: '2.0',
          method: 'x',
          params: { p: 'a'.repeat(300) + padding },
          id,
        });
        fc.pre(JSON.stringify(id).length < 200);
        expect(recoverId(head(line), tail(line))).toBe(id);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('never throws on arbitrary bytes and returns only null, strings or integers', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (h, t) => {
        const id = recoverId(h, t);
        expect(id === null || typeof id === 'string' || Number.isSafeInteger(id)).toBe(true);
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
