import { describe, expect, it } from 'vitest';
import { toClientError } from '../../src/codec/upstreamError.js';

describe('toClientError', () => {
  it('turns -32042 into -32603 with the same message and no data', () => {
    expect(
      toClientError({
        code: -32042,
        message: 'Open the URL',
        data: { elicitations: [{ url: 'https://x' }] },
      }),
    ).toEqual({ code: -32603, message: 'Open the URL' });
  });

  it('passes every other error unchanged, without a data.cause', () => {
    const error = { code: -32002, message: 'Not found', data: { uri: 'file:///a' } };
    expect(toClientError(error)).toBe(error);
    const refused = { code: -32602, message: 'bad' };
    expect(toClientError(refused)).toBe(refused);
  });

  it('turns the -32602 of a resources/read that says not found into -32002 (docs/results.md#results-resources-read)', () => {
    expect(
      toClientError({ code: -32602, message: 'Unknown', data: { uri: 'file:///a' } }, 'resources/read'),
    ).toEqual({ code: -32002, message: 'Unknown', data: { uri: 'file:///a' } });
    expect(toClientError({ code: -32602, message: 'Resource Not Found' }, 'resources/read')).toEqual({
      code: -32002,
      message: 'Resource Not Found',
    });
  });

  it('keeps other -32602s: another method, or a resources/read that does not say not found', () => {
    const tool = { code: -32602, message: 'Tool x not found' };
    expect(toClientError(tool, 'tools/call')).toBe(tool);
    const bad = { code: -32602, message: 'The uri is not valid', data: { reason: 'scheme' } };
    expect(toClientError(bad, 'resources/read')).toBe(bad);
    const old = { code: -32002, message: 'Resource not found' };
    expect(toClientError(old, 'resources/read')).toBe(old);
  });
});
