import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ITEMS_FIX_MAX_DEPTH, escapePointerToken, fixArrayItems } from '../../src/codec/itemsFix.js';
import type { JsonValue } from '../../src/protocol/jsonrpc.js';

function fix(schema: JsonValue): { fixed: JsonValue; pointers: string[] } {
  const pointers: string[] = [];
  return { fixed: fixArrayItems(schema, (pointer) => pointers.push(pointer)), pointers };
}

/** A chain of `not` subschemas `levels` deep that ends in an array node without items. */
const notChain = (levels: number): JsonValue => {
  let node: JsonValue = { type: 'array' };
  for (let i = 0; i < levels; i += 1) node = { not: node };
  return node;
};

describe('fixArrayItems', () => {
  it('adds items {} to an array node without items', () => {
    expect(fix({ type: 'object', properties: { tags: { type: 'array', description: 'd' } } })).toEqual({
      fixed: { type: 'object', properties: { tags: { type: 'array', description: 'd', items: {} } } },
      pointers: ['/properties/tags'],
    });
  });

  it.each([null, false, 0, -0, ''])('replaces items that are falsy in JavaScript: %j', (items) => {
    expect(fix({ type: 'array', items }).fixed).toMatchObject({ items: {} });
  });

  it('leaves truthy items alone, also the string "0" (truthy in JavaScript)', () => {
    for (const items of ['0', true, 1, []] as JsonValue[]) {
      expect(fix({ type: 'array', items }).pointers).toEqual([]);
    }
  });

  it('adds maxItems = prefixItems length for items false, unless maxItems exists', () => {
    expect(fix({ type: 'array', prefixItems: [{}, {}], items: false }).fixed).toEqual({
      type: 'array',
      prefixItems: [{}, {}],
      items: {},
      maxItems: 2,
    });
    expect(fix({ type: 'array', items: false }).fixed).toEqual({ type: 'array', items: {}, maxItems: 0 });
    expect(fix({ type: 'array', items: false, maxItems: 5 }).fixed).toEqual({
      type: 'array',
      items: {},
      maxItems: 5,
    });
    expect(fix({ type: 'array', items: null }).fixed).toEqual({ type: 'array', items: {} });
  });

  it('fixes only nodes whose type is exactly the string "array"', () => {
    expect(fix({ type: ['array', 'null'] }).pointers).toEqual([]);
    expect(fix({ type: 'object' }).pointers).toEqual([]);
  });

  it('walks every schema keyword and writes escaped JSON pointers in document order', () => {
    const arr = { type: 'array' };
    const schema = {
      type: 'object',
      properties: { 'a/b~c': arr },
      patternProperties: { '^x': arr },
      additionalProperties: arr,
      dependentSchemas: { d: arr },
      dependencies: { e: arr, f: ['a'] },
      $defs: { g: arr },
      definitions: { h: arr },
      anyOf: [arr],
      allOf: [true, arr],
      oneOf: [arr],
      not: arr,
      if: arr,
      then: arr,
      else: arr,
      contains: arr,
    };
    expect(fix(schema).pointers).toEqual([
      '/additionalProperties',
      '/not',
      '/if',
      '/then',
      '/else',
      '/contains',
      '/properties/a~1b~0c',
      '/patternProperties/^x',
      '/dependencies/e',
      '/dependentSchemas/d',
      '/$defs/g',
      '/definitions/h',
      '/anyOf/0',
      '/allOf/1',
      '/oneOf/0',
    ]);
  });

  it('walks items as one schema and as a list, and prefixItems', () => {
    const arr = { type: 'array' };
    expect(fix({ type: 'array', items: arr, prefixItems: [arr] }).pointers).toEqual([
      '/items',
      '/prefixItems/0',
    ]);
    expect(fix({ type: 'array', items: [arr, { type: 'string' }] }).pointers).toEqual(['/items/0']);
  });

  it('never walks data keywords (default, const, enum, examples)', () => {
    const arr = { type: 'array' };
    const schema = { type: 'object', default: arr, const: arr, enum: [arr], examples: [arr] };
    expect(fix(schema)).toEqual({ fixed: schema, pointers: [] });
  });

  it(`fixes a node ${ITEMS_FIX_MAX_DEPTH} levels deep and leaves deeper nodes unchanged`, () => {
    expect(fix(notChain(ITEMS_FIX_MAX_DEPTH)).pointers).toEqual(['/not'.repeat(ITEMS_FIX_MAX_DEPTH)]);
    const deeper = notChain(ITEMS_FIX_MAX_DEPTH + 1);
    expect(fix(deeper)).toEqual({ fixed: deeper, pointers: [] });
  });

  it('leaves an 80-level not chain intact', () => {
    const chain = notChain(80);
    expect(fix(chain).fixed).toBe(chain);
  });

  it('never changes its input and returns the same object when nothing changes', () => {
    const schema = { type: 'object', properties: { a: { type: 'array' }, b: { type: 'string' } } };
    const before = structuredClone(schema);
    const { fixed } = fix(schema);
    expect(schema).toEqual(before);
    expect((fixed as typeof schema).properties.b).toBe(schema.properties.b);
    const clean = { type: 'array', items: { type: 'string' } };
    expect(fix(clean).fixed).toBe(clean);
  });

  it('escapes pointer tokens as RFC 6901 says', () => {
    expect(escapePointerToken('~/a~1')).toBe('~0~1a~01');
  });
});

describe('fixArrayItems properties', () => {
  const falsy = fc.constantFrom<JsonValue>(null, false, 0, '');
  const { schema } = fc.letrec<{ schema: JsonValue; node: JsonValue }>((tie) => ({
    schema: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.boolean(), tie('node')),
    node: fc.record(
      {
        type: fc.constantFrom<JsonValue>('array', 'object', 'string', ['array']),
        items: fc.oneof(falsy, tie('schema'), fc.array(tie('schema'), { maxLength: 2 })),
        prefixItems: fc.array(tie('schema'), { maxLength: 2 }),
        maxItems: fc.nat(5),
        properties: fc.dictionary(fc.constantFrom('a', 'b/c', 'd~e'), tie('schema'), { maxKeys: 2 }),
        anyOf: fc.array(tie('schema'), { maxLength: 2 }),
        not: tie('schema'),
        default: fc.constant<JsonValue>({ type: 'array', items: null }),
      },
      { requiredKeys: ['type'] },
    ),
  }));

  /** Every schema node reachable through the walked keywords, with its depth. */
  function* nodes(value: JsonValue, depth = 0): Generator<[Record<string, JsonValue>, number]> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
    yield [value, depth];
    const children: JsonValue[] = [];
    const { items, prefixItems, properties, anyOf, not } = value;
    if (Array.isArray(items)) children.push(...items);
    else if (items !== undefined) children.push(items);
    if (Array.isArray(prefixItems)) children.push(...prefixItems);
    if (Array.isArray(anyOf)) children.push(...anyOf);
    if (properties && typeof properties === 'object' && !Array.isArray(properties)) {
      children.push(...Object.values(properties));
    }
    if (not !== undefined) children.push(not);
    for (const child of children) yield* nodes(child, depth + 1);
  }

  it('leaves no falsy items under an array node', () => {
    fc.assert(
      fc.property(schema, (input) => {
        for (const [node, depth] of nodes(fix(input).fixed)) {
          if (node['type'] === 'array' && depth <= ITEMS_FIX_MAX_DEPTH) expect(node['items']).toBeTruthy();
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('is idempotent and reports nothing the second time', () => {
    fc.assert(
      fc.property(schema, (input) => {
        const once = fix(input).fixed;
        const twice = fix(once);
        expect(twice.fixed).toEqual(once);
        expect(twice.pointers).toEqual([]);
      }),
      { seed: 42, numRuns: 200 },
    );
  });

  it('never changes its input, and each pointer names a fixed node', () => {
    fc.assert(
      fc.property(schema, (input) => {
        const before = structuredClone(input);
        const { fixed, pointers } = fix(input);
        expect(input).toEqual(before);
        for (const pointer of pointers) {
          const node = pointer
            .split('/')
            .slice(1)
            .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
            .reduce<JsonValue | undefined>(
              (at, token) => (at as Record<string, JsonValue> | undefined)?.[token],
              fixed,
            );
          expect(node).toMatchObject({ type: 'array', items: expect.anything() });
        }
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
