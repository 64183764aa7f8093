import { describe, expect, it } from 'vitest';
import { downgradeFrame, downgradeResult } from '../../src/codec/downgrade.js';
import { formSchemaFor } from '../../src/codec/downgradeRounds.js';
import { clientCapabilitiesFor, negotiateRevision } from '../../src/codec/revisions.js';
import type { Frame, JsonObject } from '../../src/protocol/jsonrpc.js';

describe('negotiateRevision (docs/revisions.md)', () => {
  it('keeps a revision the bridge speaks and answers anything else with 2025-11-25', () => {
    expect(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'].map(negotiateRevision)).toEqual([
      '2025-11-25',
      '2025-06-18',
      '2025-03-26',
      '2024-11-05',
    ]);
    expect([undefined, '2026-07-28', '2024-10-07', '2025-06-18 ', 20250618].map(negotiateRevision)).toEqual(
      Array(5).fill('2025-11-25'),
    );
  });
});

describe('clientCapabilitiesFor', () => {
  const declared: JsonObject = {
    roots: { listChanged: true },
    sampling: { tools: {}, context: {} },
    elicitation: { form: {}, url: {} },
    tasks: { list: {} },
    experimental: { x: {} },
    extensions: { 'io.modelcontextprotocol/ui': {} },
  };
  it('reduces what a client declared to what its revision can have', () => {
    expect(clientCapabilitiesFor(declared, '2025-11-25')).toBe(declared);
    expect(clientCapabilitiesFor(declared, '2025-06-18')).toEqual({
      experimental: { x: {} },
      roots: { listChanged: true },
      sampling: {},
      elicitation: {},
    });
    expect(clientCapabilitiesFor(declared, '2025-03-26')).toEqual({
      experimental: { x: {} },
      roots: { listChanged: true },
      sampling: {},
    });
    // URL mode alone is no form mode.
    expect(clientCapabilitiesFor({ elicitation: { url: {} } }, '2025-06-18')).toEqual({});
  });
});

describe('downgrade steps', () => {
  it('pass their input itself for 2025-11-25 and when nothing changes', () => {
    const result = { tools: [{ name: 'a', icons: [{ src: 'data:,' }] }] };
    expect(downgradeResult('tools/list', result, '2025-11-25')).toBe(result);
    const plain = { tools: [{ name: 'a', inputSchema: { type: 'object' } }] };
    expect(downgradeResult('tools/list', plain, '2024-11-05')).toBe(plain);
    const frame: Frame = {
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 1, progress: 1 },
    };
    expect(downgradeFrame(frame, '2024-11-05')).toBe(frame);
  });

  it('drop notifications/elicitation/complete before 2025-11-25', () => {
    const frame: Frame = {
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'elicitation-1' },
    };
    expect(downgradeFrame(frame, '2025-11-25')).toBe(frame);
    expect(downgradeFrame(frame, '2025-06-18')).toBeUndefined();
  });

  it('reduce a form to 2025-06-18 and refuse one with a multi-select enum', () => {
    const schema = {
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['s', 'm'], default: 's' },
        count: { type: 'integer', default: 1 },
        sure: { type: 'boolean', default: true },
      },
    };
    expect(formSchemaFor(schema, '2025-06-18')).toEqual({
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['s', 'm'] },
        count: { type: 'integer' },
        sure: { type: 'boolean', default: true },
      },
    });
    const multi = {
      type: 'object',
      properties: { tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] } } },
    };
    expect(formSchemaFor(multi, '2025-06-18')).toBeUndefined();
    expect(formSchemaFor(multi, '2025-11-25')).toBe(multi);
    expect(formSchemaFor(schema, '2025-03-26')).toBeUndefined();
  });
});
