import { describe, expect, it } from 'vitest';
import { createToolHeaderCache, paramHeaders, scanToolHeaders } from '../../../src/edges/http/toolHeaders.js';
import type { JsonObject } from '../../../src/protocol/jsonrpc.js';

const schema = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({
  type: 'object',
  properties,
  ...extra,
});

const invalid = (inputSchema: JsonObject) => {
  const scan = scanToolHeaders(inputSchema);
  expect(scan.valid).toBe(false);
  return scan.valid ? '' : scan.reason;
};

describe('x-mcp-header validation (docs/http-upstream.md#http-x-mcp-header)', () => {
  it('accepts string, integer and boolean properties, also nested through properties', () => {
    const scan = scanToolHeaders(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        count: { type: 'integer', 'x-mcp-header': 'Count' },
        flag: { type: 'boolean', 'x-mcp-header': 'X-Flag_1' },
        options: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
      }),
    );
    expect(scan).toEqual({
      valid: true,
      declarations: [
        { path: ['region'], header: 'Region' },
        { path: ['count'], header: 'Count' },
        { path: ['flag'], header: 'X-Flag_1' },
        { path: ['options', 'tenant'], header: 'Tenant' },
      ],
    });
  });

  it('accepts a schema without annotations and a property named x-mcp-header', () => {
    expect(scanToolHeaders(schema({ 'x-mcp-header': { type: 'string' } }))).toEqual({
      valid: true,
      declarations: [],
    });
    expect(scanToolHeaders(undefined)).toEqual({ valid: true, declarations: [] });
  });

  it('rejects an empty name or one that is not an HTTP token', () => {
    for (const name of ['', 'Bad Name', 'a:b', 'ä', 'a\r\nb', 'x(y)']) {
      expect(invalid(schema({ a: { type: 'string', 'x-mcp-header': name } }))).toMatch(/not an HTTP token/);
    }
    expect(invalid(schema({ a: { type: 'string', 'x-mcp-header': 7 } }))).toMatch(/not an HTTP token/);
  });

  it('rejects names that repeat regardless of case', () => {
    const reason = invalid(
      schema({
        a: { type: 'string', 'x-mcp-header': 'Region' },
        b: { type: 'string', 'x-mcp-header': 'REGION' },
      }),
    );
    expect(reason).toMatch(/repeats/);
  });

  it('rejects number, object, array, missing and union types', () => {
    for (const type of ['number', 'object', 'array', 'null', undefined, ['string', 'null']]) {
      const property: JsonObject = { 'x-mcp-header': 'H' };
      if (type !== undefined) property['type'] = type;
      expect(invalid(schema({ a: property }))).toMatch(/type is not string, integer or boolean/);
    }
  });

  it('rejects annotations that are not reached through properties keys alone', () => {
    const header = { type: 'string', 'x-mcp-header': 'H' };
    const cases: JsonObject[] = [
      schema({ list: { type: 'array', items: header } }),
      schema({ list: { type: 'array', prefixItems: [header] } }),
      schema({ a: { oneOf: [header] } }),
      schema({ a: { anyOf: [header] } }),
      schema({ a: { allOf: [header] } }),
      schema({ a: { not: header } }),
      schema({}, { if: schema({ a: header }) }),
      schema({}, { then: schema({ a: header }) }),
      schema({}, { else: schema({ a: header }) }),
      schema({}, { additionalProperties: header }),
      schema({}, { patternProperties: { '^x': header } }),
      schema({ a: { $ref: '#/$defs/h' } }, { $defs: { h: header } }),
      schema({}, { definitions: { h: header } }),
      { type: 'object', 'x-mcp-header': 'Root' },
    ];
    for (const inputSchema of cases) expect(invalid(inputSchema)).toMatch(/only allowed on properties/);
  });

  it('ignores annotation-like keys inside const, enum, default and examples data', () => {
    const data = { 'x-mcp-header': 'not a schema' };
    expect(
      scanToolHeaders(schema({ a: { type: 'object', default: data, examples: [data], const: data } })).valid,
    ).toBe(true);
  });

  it('makes a schema nested deeper than the limit invalid instead of overflowing', () => {
    let node: JsonObject = { type: 'string' };
    for (let i = 0; i < 2000; i++) node = { type: 'object', properties: { a: node } };
    expect(invalid(node)).toMatch(/nested deeper/);
  });
});

describe('Mcp-Param headers of a call', () => {
  const declarations = [
    { path: ['region'], header: 'Region' },
    { path: ['count'], header: 'Count' },
    { path: ['options', 'tenant'], header: 'Tenant' },
  ];

  it('reads each annotated path and encodes the value', () => {
    expect(
      paramHeaders(declarations, { region: 'Hello, 世界', count: 3, options: { tenant: ' t ' } }),
    ).toEqual([
      ['Mcp-Param-Region', '=?base64?SGVsbG8sIOS4lueVjA==?='],
      ['Mcp-Param-Count', '3'],
      ['Mcp-Param-Tenant', '=?base64?IHQg?='],
    ]);
  });

  it('omits the header of a missing or null value', () => {
    expect(paramHeaders(declarations, { region: null, options: null })).toEqual([]);
    expect(paramHeaders(declarations, undefined)).toEqual([]);
  });
});

describe('createToolHeaderCache', () => {
  const good = { name: 'good', inputSchema: schema({ r: { type: 'string', 'x-mcp-header': 'R' } }) };
  const bad = { name: 'bad', inputSchema: schema({ n: { type: 'number', 'x-mcp-header': 'N' } }) };

  it('removes invalid tools from the list result and reports them once', () => {
    const cache = createToolHeaderCache();
    const result = { resultType: 'complete', tools: [good, bad] };
    const first = cache.learn(result);
    expect(first.result).toEqual({ resultType: 'complete', tools: [good] });
    expect(first.hidden.map((tool) => tool.name)).toEqual(['bad']);
    expect(cache.learn(result).hidden).toEqual([]);
    expect([...cache.invalidTools().keys()]).toEqual(['bad']);
    expect(cache.invalidReason('bad')).toMatch(/type/);
    expect(cache.known('good')).toBe(true);
    expect(cache.known('other')).toBe(false);
    expect(cache.headersFor('good', { r: 'v' })).toEqual([['Mcp-Param-R', 'v']]);
  });

  it('returns the same result object when every tool is valid', () => {
    const result = { tools: [good] };
    expect(createToolHeaderCache().learn(result).result).toBe(result);
  });

  it('replaces a tool definition by a later list', () => {
    const cache = createToolHeaderCache();
    cache.learn({ tools: [bad] });
    cache.learn({
      tools: [{ ...bad, inputSchema: schema({ n: { type: 'integer', 'x-mcp-header': 'N' } }) }],
    });
    expect(cache.invalidTools().size).toBe(0);
    expect(cache.headersFor('bad', { n: 5 })).toEqual([['Mcp-Param-N', '5']]);
  });
});
