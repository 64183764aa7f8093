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
});
