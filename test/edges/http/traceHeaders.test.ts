/**
 * The trace context of a request's `_meta` also goes as `traceparent`/`tracestate` HTTP headers
 * to a URL upstream (docs/observability.md#observability-spans), only when well-formed.
 */
import { describe, expect, it } from 'vitest';
import { requestHeaders } from '../../../src/edges/http/headers.js';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const headersOf = (
  meta: unknown,
  staticHeaders: { name: string; value: string }[] = [],
): Record<string, string> =>
  requestHeaders({
    method: 'tools/call',
    params: { name: 'echo', arguments: {}, ...(meta === undefined ? {} : { _meta: meta as never }) },
    protocolVersion: '2026-07-28',
    staticHeaders,
  });

describe('trace headers of an HTTP upstream request', () => {
  it('sends traceparent and tracestate of _meta as headers', () => {
    const headers = headersOf({ traceparent: PARENT, tracestate: 'vendor=abc,other=1' });
    expect(headers['traceparent']).toBe(PARENT);
    expect(headers['tracestate']).toBe('vendor=abc,other=1');
  });

  it('sends no trace header without _meta, or with a malformed traceparent', () => {
    for (const meta of [
      undefined,
      {},
      { traceparent: 'not-a-traceparent', tracestate: 'a=b' },
      { traceparent: `${PARENT}\r\nX: y` },
    ]) {
      const headers = headersOf(meta);
      expect(headers['traceparent']).toBeUndefined();
      expect(headers['tracestate']).toBeUndefined();
    }
  });

  it('leaves out a tracestate that is no header value', () => {
    const headers = headersOf({ traceparent: PARENT, tracestate: 'a=b\r\nInjected: yes' });
    expect(headers['traceparent']).toBe(PARENT);
    expect(headers['tracestate']).toBeUndefined();
  });

  it('replaces a static header of the same name, whatever its case', () => {
    const headers = headersOf({ traceparent: PARENT }, [
      { name: 'TraceParent', value: '00-11111111111111111111111111111111-2222222222222222-01' },
      { name: 'X-Team', value: 'blue' },
    ]);
    expect(Object.entries(headers).filter(([key]) => key.toLowerCase() === 'traceparent')).toEqual([
      ['traceparent', PARENT],
    ]);
    expect(headers['X-Team']).toBe('blue');
  });
});
