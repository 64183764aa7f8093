import { describe, expect, it } from 'vitest';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerText,
  mcpName,
  requestHeaders,
} from '../../../src/edges/http/headers.js';

describe('header value encoding (docs/http-upstream.md#http-header-values)', () => {
  it('sends visible ASCII with interior spaces as it is', () => {
    expect(encodeHeaderValue('us-west-2')).toBe('us-west-2');
    expect(encodeHeaderValue('a b:c/d?e=f')).toBe('a b:c/d?e=f');
  });

  it('wraps non-ASCII text in the Base64 sentinel of its UTF-8 bytes (spec example)', () => {
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
  });

  it('wraps leading or trailing whitespace (spec example)', () => {
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('end ')).toBe(`=?base64?${Buffer.from('end ').toString('base64')}?=`);
  });

  it('wraps control characters, CR, LF and TAB', () => {
    for (const value of ['a\r\nInjected: yes', 'a\nb', 'a\tb', 'a\u0000b', 'a\u007fb']) {
      expect(encodeHeaderValue(value)).toBe(`=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`);
    }
  });

  it('wraps a plain value that looks like the sentinel, and the empty value', () => {
    expect(encodeHeaderValue('=?base64?abc?=')).toBe(
      `=?base64?${Buffer.from('=?base64?abc?=').toString('base64')}?=`,
    );
    expect(encodeHeaderValue('=?BASE64?abc?=')).toMatch(/^=\?base64\?/);
    expect(encodeHeaderValue('')).toBe('=?base64??=');
  });

  it('round-trips through the decoder', () => {
    for (const value of ['plain', 'Hello, 世界', ' x ', '=?base64?x?=', '😀', '']) {
      expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
    }
  });

  it('converts strings as they are, integers in decimal and booleans as true/false', () => {
    expect(headerText('x')).toBe('x');
    expect(headerText(42)).toBe('42');
    expect(headerText(-7)).toBe('-7');
    expect(headerText(true)).toBe('true');
    expect(headerText(false)).toBe('false');
  });

  it('gives no header text for null, objects, arrays, fractions and unsafe integers', () => {
    for (const value of [null, { a: 1 }, [1], 1.5, 2 ** 53, undefined])
      expect(headerText(value)).toBeUndefined();
  });
});

describe('requestHeaders', () => {
  const base = { protocolVersion: '2026-07-28', staticHeaders: [] };

  it('sets Mcp-Name from params.name for tools/call and prompts/get, from params.uri for resources/read', () => {
    expect(mcpName('tools/call', { name: 'echo' })).toBe('echo');
    expect(mcpName('prompts/get', { name: 'greet' })).toBe('greet');
    expect(mcpName('resources/read', { uri: 'file:///ä' })).toBe(
      `=?base64?${Buffer.from('file:///ä').toString('base64')}?=`,
    );
    expect(mcpName('tools/list', { name: 'x' })).toBeUndefined();
    expect(mcpName('subscriptions/listen', {})).toBeUndefined();
  });

  it('sends the transport headers and the static headers, never a session id', () => {
    const headers = requestHeaders({
      ...base,
      method: 'tools/call',
      params: { name: 'echo' },
      paramHeaders: [['Mcp-Param-Region', 'eu']],
      staticHeaders: [{ name: 'X-Api-Key', value: 'secret' }],
    });
    expect(headers).toEqual({
      'X-Api-Key': 'secret',
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': '2026-07-28',
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'echo',
      'Mcp-Param-Region': 'eu',
    });
  });

  it('drops static headers that the transport owns', () => {
    const headers = requestHeaders({
      ...base,
      method: 'tools/list',
      params: {},
      staticHeaders: [
        { name: 'accept', value: 'text/html' },
        { name: 'MCP-Method', value: 'x' },
        { name: 'Mcp-Session-Id', value: 'x' },
        { name: 'Last-Event-ID', value: 'x' },
        { name: 'Proxy-Authorization', value: 'x' },
        { name: 'Authorization', value: 'Bearer t' },
      ],
    });
    expect(Object.keys(headers).map((name) => name.toLowerCase())).toEqual([
      'authorization',
      'content-type',
      'accept',
      'mcp-protocol-version',
      'mcp-method',
    ]);
    expect(headers['Accept']).toBe('application/json, text/event-stream');
  });
});
