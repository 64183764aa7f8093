/**
 * The pure rules of the HTTP front end (docs/serve.md#serve-rules, docs/serve.md#serve-security):
 * Host, Origin, Accept, MCP-Protocol-Version, the session id shape and the bearer comparison.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  acceptsEventStream,
  acceptsPost,
  hostAllowed,
  isJsonContent,
  isLoopback,
  isSessionIdShape,
  originAllowed,
  protocolVersionAllowed,
} from '../../../src/edges/httpFront/rules.js';
import { bearerMatches } from '../../../src/edges/httpFront/tokenStep.js';
import { parseBody } from '../../../src/edges/httpFront/body.js';

const LIMITS = { maxDepth: 64, maxLineBytes: 1000 };

describe('hostAllowed', () => {
  it('takes loopback names and addresses with the bound port', () => {
    for (const host of ['127.0.0.1:8808', 'localhost:8808', 'LOCALHOST:8808', '[::1]:8808', '127.1.2.3:8808'])
      expect(hostAllowed(host, 8808, '127.0.0.1')).toBe(true);
  });

  it('refuses another name, another port, no port and no Host (DNS rebinding)', () => {
    for (const host of [
      'evil.example:8808',
      'localhost:8809',
      'localhost',
      '127.0.0.1.evil.example:8808',
      undefined,
    ])
      expect(hostAllowed(host, 8808, '127.0.0.1')).toBe(false);
  });

  it('takes the listen address itself, and any name on a server bound to all addresses', () => {
    expect(hostAllowed('192.168.1.5:8808', 8808, '192.168.1.5')).toBe(true);
    expect(hostAllowed('192.168.1.6:8808', 8808, '192.168.1.5')).toBe(false);
    expect(hostAllowed('192.168.1.5', 8808, '192.168.1.5')).toBe(false);
    expect(hostAllowed('box.lan:8808', 8808, '0.0.0.0')).toBe(true);
    // Behind a load balancer: the clients' name, with the balancer's port or none.
    expect(hostAllowed('mcp.example.com', 8808, '0.0.0.0')).toBe(true);
    expect(hostAllowed('mcp.example.com:443', 8808, '::')).toBe(true);
    expect(hostAllowed(undefined, 8808, '0.0.0.0')).toBe(false);
  });
});

describe('originAllowed', () => {
  it('takes no Origin, the own loopback origin and the listed ones', () => {
    expect(originAllowed(undefined, 8808, [])).toBe(true);
    expect(originAllowed('http://localhost:8808', 8808, [])).toBe(true);
    expect(originAllowed('https://vscode.dev', 8808, ['https://vscode.dev'])).toBe(true);
  });

  it('refuses other origins, other loopback ports and the literal null', () => {
    for (const origin of ['https://evil.example', 'http://localhost:3000', 'null', 'https://localhost:8808'])
      expect(originAllowed(origin, 8808, ['https://vscode.dev'])).toBe(false);
  });
});

describe('headers', () => {
  it('needs both media types in the Accept of a POST, and an event stream in that of a GET', () => {
    expect(acceptsPost('application/json, text/event-stream')).toBe(true);
    expect(acceptsPost('text/event-stream;q=0.9, application/json;q=1')).toBe(true);
    expect(acceptsPost('*/*')).toBe(true);
    expect(acceptsPost('application/json')).toBe(false);
    expect(acceptsPost(undefined)).toBe(false);
    expect(acceptsEventStream('text/event-stream')).toBe(true);
    expect(acceptsEventStream('application/json')).toBe(false);
  });

  it('takes application/json with parameters as a JSON body', () => {
    expect(isJsonContent('application/json; charset=utf-8')).toBe(true);
    expect(isJsonContent('text/plain')).toBe(false);
  });

  it('takes a missing MCP-Protocol-Version and the revisions of the bridge, nothing else', () => {
    expect(protocolVersionAllowed(undefined)).toBe(true);
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26'])
      expect(protocolVersionAllowed(version)).toBe(true);
    expect(protocolVersionAllowed('2026-07-28')).toBe(false);
    expect(protocolVersionAllowed('')).toBe(false);
  });

  it('knows loopback addresses', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('192.168.1.5')).toBe(false);
  });

  it('takes session ids of base64url with 22 characters or more', () => {
    expect(isSessionIdShape('A'.repeat(32))).toBe(true);
    expect(isSessionIdShape('A'.repeat(21))).toBe(false);
    expect(isSessionIdShape('../../etc/passwd00000000')).toBe(false);
  });
});

describe('bearerMatches', () => {
  const expected = createHash('sha256').update('s3cret').digest();
  it('takes the token of the server only', () => {
    expect(bearerMatches('Bearer s3cret', expected)).toBe(true);
    expect(bearerMatches('bearer s3cret', expected)).toBe(true);
    expect(bearerMatches('Bearer s3cre', expected)).toBe(false);
    expect(bearerMatches('Basic s3cret', expected)).toBe(false);
    expect(bearerMatches(undefined, expected)).toBe(false);
  });
});

describe('parseBody', () => {
  it('gives the -32700 frame of a bad line for a body that is not JSON, with its id when it can', () => {
    expect(parseBody(Buffer.from('{"jsonrpc":"2.0","id":4,'), LIMITS)).toEqual({
      kind: 'bad',
      frame: {
        jsonrpc: '2.0',
        id: 4,
        error: { code: -32700, message: 'The request is not valid JSON.', data: { cause: 'parse_error' } },
      },
    });
    expect(parseBody(Buffer.from(''), LIMITS)).toMatchObject({
      kind: 'bad',
      frame: { id: null, error: { code: -32700 } },
    });
  });

  it('takes one message, or a batch of them', () => {
    const one = { jsonrpc: '2.0', method: 'notifications/initialized' };
    expect(parseBody(Buffer.from(JSON.stringify(one)), LIMITS)).toEqual({
      kind: 'messages',
      messages: [{ kind: 'frame', frame: one }],
    });
    const batch = parseBody(
      Buffer.from(JSON.stringify([one, { jsonrpc: '2.0', id: 1, method: 'ping' }])),
      LIMITS,
    );
    expect(batch.kind === 'messages' ? batch.messages.length : 0).toBe(2);
  });
});
