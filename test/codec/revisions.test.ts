import { describe, expect, it } from 'vitest';
import { downgradeFrame, downgradeResult } from '../../src/codec/downgrade.js';
import { formSchemaFor } from '../../src/codec/downgradeRounds.js';
import { negotiateRevision } from '../../src/codec/revisions.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';
import { urlQuestion } from '../helpers/elicitations.js';

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

  it('pass a URL elicitation and its completion to an older client as they are (only one that declared URL mode gets them)', () => {
    const complete: Frame = {
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'elicitation-1' },
    };
    const ask = urlQuestion('b-1', {
      message: 'Sign in.',
      url: 'https://example.com/',
      elicitationId: 'elicitation-1',
    });
    expect(downgradeFrame(complete, '2025-06-18')).toBe(complete);
    expect(downgradeFrame(ask, '2025-06-18')).toBe(ask);
    // A form loses its mode, which 2025-06-18 lacks.
    const form: Frame = {
      jsonrpc: '2.0',
      id: 'b-2',
      method: 'elicitation/create',
      params: { mode: 'form', message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
    };
    expect(downgradeFrame(form, '2025-06-18')).toEqual({
      jsonrpc: '2.0',
      id: 'b-2',
      method: 'elicitation/create',
      params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } },
    });
  });

  it('reduce a form to 2025-06-18 (also for an older client) and refuse one with a multi-select enum', () => {
    const schema = {
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['s', 'm'], default: 's' },
        count: { type: 'integer', default: 1 },
        sure: { type: 'boolean', default: true },
      },
    };
    const june = {
      type: 'object',
      properties: {
        size: { type: 'string', enum: ['s', 'm'] },
        count: { type: 'integer' },
        sure: { type: 'boolean', default: true },
      },
    };
    expect(formSchemaFor(schema, '2025-06-18')).toEqual(june);
    // An older client that declared elicitation gets the shape of 2025-06-18, the first with forms.
    expect(formSchemaFor(schema, '2025-03-26')).toEqual(june);
    const multi = {
      type: 'object',
      properties: { tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] } } },
    };
    expect(formSchemaFor(multi, '2025-06-18')).toBeUndefined();
    expect(formSchemaFor(multi, '2025-11-25')).toBe(multi);
  });
});
