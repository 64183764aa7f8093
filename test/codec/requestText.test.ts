import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frozenJson, requestLine } from '../../src/codec/requestText.js';
import type { JsonObject, JsonValue } from '../../src/protocol/jsonrpc.js';

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
const key = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '_meta',
    '__proto__',
    'toJSON',
    '0',
    '10',
    'progressToken',
    'the _meta of this request',
    '"_meta"',
  ),
);

/** What a line must be: JSON.stringify of the frame and a newline. */
const expected = (id: number, method: string, params: JsonObject): string =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`;

/** An object with the members in order, `__proto__` as an own member (as JSON.parse makes it). */
function objectOf(entries: readonly (readonly [string, JsonValue])[]): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of entries)
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

describe('requestLine', () => {
  it('writes the frame of a 2026-07-28 request as JSON.stringify does, with frozen members in _meta', () => {
    const info = frozenJson({ name: 'vscode', version: '1.0.0' });
    const caps = frozenJson({ elicitation: { form: {}, url: {} }, roots: {} });
    const line = requestLine(7, 'tools/call', {
      name: 'echo',
      arguments: { text: 'hi "there"\n' },
      _meta: {
        traceparent: 't',
        'io.modelcontextprotocol/clientInfo': info,
        'io.modelcontextprotocol/clientCapabilities': caps,
        progressToken: 7,
      },
    });
    expect(line).toBe(
      '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi \\"there\\"\\n"},"_meta":{"traceparent":"t","io.modelcontextprotocol/clientInfo":{"name":"vscode","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{},"url":{}},"roots":{}},"progressToken":7}}}\n',
    );
  });

  it('equals JSON.stringify of the frame for any params and _meta (property)', () => {
    let checked = 0;
    let withMeta = 0;
    fc.assert(
      fc.property(
        fc.nat(),
        fc.string(),
        fc.array(fc.tuple(key, json), { maxLength: 5 }),
        fc.option(fc.array(fc.tuple(key, json), { maxLength: 5 }), { nil: undefined }),
        fc.boolean(),
        (id, method, members, metaMembers, freeze) => {
          const params = objectOf(members);
          if (metaMembers !== undefined) {
            const meta = objectOf(metaMembers.map(([k, v]) => [k, freeze ? frozenJson(v) : v] as const));
            Object.defineProperty(params, '_meta', {
              value: meta,
              enumerable: true,
              writable: true,
              configurable: true,
            });
            withMeta += 1;
          }
          const before = JSON.stringify(params);
          // Twice: the second line uses the text remembered for the frozen members.
          expect(requestLine(id, method, params)).toBe(expected(id, method, params));
          expect(requestLine(id, method, params)).toBe(expected(id, method, params));
          // The params are as they were (the placeholder is put back).
          expect(JSON.stringify(params)).toBe(before);
          checked += 1;
        },
      ),
      { numRuns: 400 },
    );
    expect(checked).toBeGreaterThanOrEqual(400);
    expect(withMeta).toBeGreaterThanOrEqual(100);
  });

  it('never reuses the text of an object that can still change', () => {
    const caps: JsonObject = { elicitation: {} };
    const params = (): JsonObject => ({ name: 'x', _meta: { caps, progressToken: 1 } });
    expect(requestLine(1, 'tools/call', params())).toContain('"caps":{"elicitation":{}}');
    caps['sampling'] = {};
    expect(requestLine(1, 'tools/call', params())).toContain('"caps":{"elicitation":{},"sampling":{}}');
    // Frozen on the outside only: its inner object still changes.
    const inner: JsonObject = { a: 1 };
    const shallow = Object.freeze({ inner });
    const line = (): string => requestLine(2, 'm', { _meta: { shallow } });
    expect(line()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"m","params":{"_meta":{"shallow":{"inner":{"a":1}}}}}\n',
    );
    inner['a'] = 2;
    expect(line()).toBe(
      '{"jsonrpc":"2.0","id":2,"method":"m","params":{"_meta":{"shallow":{"inner":{"a":2}}}}}\n',
    );
  });

  it('a copy of a frozenJson value does not carry its text: a changed copy is written as it is now', () => {
    const info = frozenJson({ name: 'vscode', version: '1.0.0' });
    const copy: JsonObject = { ...info };
    copy['version'] = '2.0.0';
    expect(Object.keys(info)).toEqual(['name', 'version']);
    expect(requestLine(5, 'm', { _meta: { info: copy } })).toBe(
      '{"jsonrpc":"2.0","id":5,"method":"m","params":{"_meta":{"info":{"name":"vscode","version":"2.0.0"}}}}\n',
    );
  });

  it('writes params whose _meta is not the last member, or is a value the client wrote, as they are', () => {
    const meta = frozenJson({ v: 1 });
    expect(requestLine(3, 'm', { _meta: { a: meta }, after: true })).toBe(
      '{"jsonrpc":"2.0","id":3,"method":"m","params":{"_meta":{"a":{"v":1}},"after":true}}\n',
    );
    expect(requestLine(4, 'm', { x: { _meta: 'the _meta of this request' }, _meta: 'text' })).toBe(
      '{"jsonrpc":"2.0","id":4,"method":"m","params":{"x":{"_meta":"the _meta of this request"},"_meta":"text"}}\n',
    );
  });
});

describe('frozenJson', () => {
  it('is a deep-frozen copy with the same text', () => {
    const source: JsonObject = { a: { b: [1, { c: 'd' }] } };
    const frozen = frozenJson(source);
    expect(JSON.stringify(frozen)).toBe('{"a":{"b":[1,{"c":"d"}]}}');
    expect(frozen).not.toBe(source);
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(Object.isFrozen((frozen['a'] as JsonObject)['b'])).toBe(true);
    expect(Object.isFrozen(((frozen['a'] as JsonObject)['b'] as JsonValue[])[1])).toBe(true);
    expect(Object.isFrozen(source)).toBe(false);
  });
});
