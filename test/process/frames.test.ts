/**
 * The bad-line rule of the built bridge, in raw lines over its stdin (docs/lines.md#lines-bad-line
 * , §9.6 items 1 and 2, §11 items 1 and 2): framing, limits, error responses with the id
 * recovered from the raw bytes, and a connection that stays open after each bad line. Needs the
 * build (`npx tsc -p tsconfig.build.json`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIRE_ERRORS } from '../helpers/wireErrors.js';
import type { WireCause as Cause } from '../helpers/wireErrors.js';
import { clientFrameProblems, req, startBridge } from '../helpers/bridgeProcess.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';

const LIMIT = 1000;
let bridge: RawPeer;

beforeAll(() => {
  // No initialize is ever sent: the reader works before it, and the upstream never starts.
  bridge = startBridge({ bridgeArgs: ['--max-line-bytes', String(LIMIT)] });
});
afterAll(killAllPeers);

/** The error response the bridge writes for a bad line. */
const errorFrame = (id: string | number | null, cause: Cause, detail?: string): Frame => {
  const [code, message] = WIRE_ERRORS[cause];
  return {
    jsonrpc: '2.0',
    id,
    error: { code, message, data: detail === undefined ? { cause } : { cause, detail } },
  };
};

/** Writes raw bytes (one or more lines, with their newlines) in one write. */
const write = (bytes: string | Buffer): void => void bridge.child.stdin?.write(bytes);

/**
 * The next line of stdout as a frame, checked against the 2025-11-25 schema. JSON-RPC 2.0 wants
 * `"id": null` when the id cannot be known; the MCP schema makes `id` optional instead and has no
 * null, so such a frame is checked without its id.
 */
async function next(): Promise<Frame> {
  const frame = await bridge.nextFrame();
  const { id, ...rest } = frame;
  expect(clientFrameProblems(id === null ? rest : frame)).toEqual([]);
  return frame;
}

/** A ping after a bad line still gets its answer, and nothing else came in between. */
async function expectOpen(id: string | number): Promise<void> {
  write(`${JSON.stringify(req(id, 'ping'))}\n`);
  expect(await next()).toEqual({ jsonrpc: '2.0', id, result: {} });
}

/** A ping line padded (inside params) to exactly `bytes` bytes, with `id` first or last. */
function paddedPing(id: string | number, bytes: number, idLast = false): string {
  const frame = (pad: string): string =>
    idLast
      ? `{"jsonrpc":"2.0","method":"ping","params":{"pad":"${pad}"},"id":${JSON.stringify(id)}}`
      : `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"ping","params":{"pad":"${pad}"}}`;
  const line = frame('x'.repeat(bytes - frame('').length));
  expect(Buffer.byteLength(line)).toBe(bytes);
  return line;
}

describe('frames of the client', () => {
  it('answers a line that ends in \\r\\n, without the \\r', async () => {
    write('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 'crlf', result: {} });
  });

  it('skips empty lines and lines of only spaces and tabs without an answer', async () => {
    const before = bridge.lines.length;
    write('\n   \n\t \t\n\r\n');
    await expectOpen('after-blank');
    expect(bridge.lines).toHaveLength(before + 1);
  });

  it('answers several frames of one write, each once and in order', async () => {
    write(
      [
        JSON.stringify(req(0, 'ping')),
        'not json',
        JSON.stringify(req('two', 'ping')),
        JSON.stringify(req(3, 'ping')),
        '',
      ].join('\n'),
    );
    expect([await next(), await next(), await next(), await next()]).toEqual([
      { jsonrpc: '2.0', id: 0, result: {} },
      errorFrame(null, 'parse_error'),
      { jsonrpc: '2.0', id: 'two', result: {} },
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
  });

  it('answers invalid JSON with -32700 and the id recovered from the line', async () => {
    write('{"jsonrpc":"2.0","id":11,"method":"ping","params":{"a":}\n');
    expect(await next()).toEqual(errorFrame(11, 'parse_error'));
    write('{"jsonrpc":"2.0","id":"str-11","method":"ping",\n');
    expect(await next()).toEqual(errorFrame('str-11', 'parse_error'));
    write('{"id":0,"jsonrpc":"2.0","method":"ping"\n');
    expect(await next()).toEqual(errorFrame(0, 'parse_error'));
    await expectOpen(12);
  });

  it('recovers the top-level id, not one nested in params, with its escapes', async () => {
    write('{"jsonrpc":"2.0","method":"x","params":{"id":"inner"},"id":"outer",}\n');
    expect(await next()).toEqual(errorFrame('outer', 'parse_error'));
    write('{"params":{"a":[{"id":9}]},"id":-3,\n');
    expect(await next()).toEqual(errorFrame(-3, 'parse_error'));
    write('{"id":"a\\"b\\u0041","jsonrpc":"2.0",\n');
    expect(await next()).toEqual(errorFrame('a"bA', 'parse_error'));
    // 1.5 is no id of JSON-RPC for MCP (string or integer).
    write('{"id":1.5,"jsonrpc":\n');
    expect(await next()).toEqual(errorFrame(null, 'parse_error'));
  });

  it('answers a line without a recoverable id with -32700 and id null', async () => {
    write('this is not JSON at all\n');
    expect(await next()).toEqual(errorFrame(null, 'parse_error'));
    await expectOpen(13);
  });

  it('answers invalid UTF-8 with -32700 and the id', async () => {
    write(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":14,"method":"ping","params":{"x":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}\n'),
      ]),
    );
    expect(await next()).toEqual(errorFrame(14, 'parse_error'));
    await expectOpen(15);
  });

  it('answers a lone surrogate escape with -32700, although JSON.parse accepts it', async () => {
    write('{"jsonrpc":"2.0","id":"sur-1","method":"ping","params":{"x":"\\ud800"}}\n');
    expect(await next()).toEqual(errorFrame('sur-1', 'parse_error'));
    write('{"jsonrpc":"2.0","id":16,"method":"ping","params":{"x":"a\\udfffb"}}\n');
    expect(await next()).toEqual(errorFrame(16, 'parse_error'));
    // Upper-case hex, a high one before a character that is not low, a pair split over two
    // strings, and one in a key are lone too.
    for (const [id, params] of [
      ['upper', '{"x":"\\uD800"}'],
      ['high-a', '{"x":"\\ud800\\u0041"}'],
      ['split', '{"x":"\\ud83d","y":"\\ude00"}'],
      ['key', '{"\\udc00":1}'],
    ]) {
      write(`{"jsonrpc":"2.0","id":"${id}","method":"ping","params":${params}}\n`);
      expect(await next()).toEqual(errorFrame(id!, 'parse_error'));
    }
    // A pair is a valid character, and an escaped backslash before "ud800" is no escape.
    write('{"jsonrpc":"2.0","id":17,"method":"ping","params":{"x":"\\ud83d\\ude00","y":"\\uDBFF\\uDFFF"}}\n');
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 17, result: {} });
    write('{"jsonrpc":"2.0","id":"text","method":"ping","params":{"x":"\\\\ud800"}}\n');
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 'text', result: {} });
  });

  it('answers a raw control character inside a string with -32700', async () => {
    write('{"jsonrpc":"2.0","id":18,"method":"ping","params":{"x":"a\u0001b"}}\n');
    expect(await next()).toEqual(errorFrame(18, 'parse_error'));
    write('{"jsonrpc":"2.0","id":19,"method":"ping","params":{"x":"a\tb"}}\n');
    expect(await next()).toEqual(errorFrame(19, 'parse_error'));
    await expectOpen(20);
  });

  it('answers valid JSON that is not JSON-RPC 2.0 with -32600 invalid_request_shape', async () => {
    write('{"jsonrpc":"1.0","id":21,"method":"ping"}\n');
    expect(await next()).toEqual(errorFrame(21, 'invalid_request_shape'));
    write('{"jsonrpc":"2.0","id":"no-method"}\n');
    expect(await next()).toEqual(errorFrame('no-method', 'invalid_request_shape'));
    // A batch (revision 2025-03-26) is refused as a whole, and says so (docs/revisions.md).
    write('[{"jsonrpc":"2.0","id":22,"method":"ping"}]\n');
    expect(await next()).toEqual(
      errorFrame(null, 'invalid_request_shape', 'a JSON-RPC batch: the bridge takes one message per line'),
    );
    write('42\n');
    expect(await next()).toEqual(errorFrame(null, 'invalid_request_shape'));
    await expectOpen(23);
  });

  it('answers nesting deeper than 64 levels with -32600 too_deep, and accepts 64', async () => {
    // The top-level object is level 1, params level 2, then arrays.
    const nested = (levels: number): string => `${'['.repeat(levels)}${']'.repeat(levels)}`;
    write(`{"jsonrpc":"2.0","id":24,"method":"ping","params":{"x":${nested(63)}}}\n`);
    expect(await next()).toEqual(errorFrame(24, 'too_deep', 'limit: 64 levels'));
    write(`{"jsonrpc":"2.0","id":25,"method":"ping","params":{"x":${nested(62)}}}\n`);
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 25, result: {} });
    await expectOpen(26);
  });

  it('answers a line of exactly the limit, and refuses one byte more with line_too_long', async () => {
    write(`${paddedPing(27, LIMIT)}\n`);
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 27, result: {} });
    // The \r of \r\n does not count.
    write(`${paddedPing(28, LIMIT)}\r\n`);
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 28, result: {} });
    write(`${paddedPing(29, LIMIT + 1)}\n`);
    expect(await next()).toEqual(errorFrame(29, 'line_too_long', `limit: ${LIMIT} bytes`));
    await expectOpen(30);
  });

  it('answers a long line with the id from its head, or from its tail when the id is last', async () => {
    write(`${paddedPing('head-31', 50 * LIMIT)}\n`);
    expect(await next()).toEqual(errorFrame('head-31', 'line_too_long', `limit: ${LIMIT} bytes`));
    write(`${paddedPing(32, 50 * LIMIT, true)}\n`);
    expect(await next()).toEqual(errorFrame(32, 'line_too_long', `limit: ${LIMIT} bytes`));
    write(`${paddedPing(0, 3 * LIMIT, true)}\r\n`);
    expect(await next()).toEqual(errorFrame(0, 'line_too_long', `limit: ${LIMIT} bytes`));
    write(`{"jsonrpc":"2.0","method":"ping","params":{"pad":"${'y'.repeat(2 * LIMIT)}"}}\n`);
    expect(await next()).toEqual(errorFrame(null, 'line_too_long', `limit: ${LIMIT} bytes`));
    await expectOpen(33);
  });

  it('answers a long line that arrives in many small writes, and the next line normally', async () => {
    const line = paddedPing('chunked', 4 * LIMIT, true);
    for (let i = 0; i < line.length; i += 97) write(line.slice(i, i + 97));
    write(`\n${JSON.stringify(req(34, 'ping'))}\n`);
    expect(await next()).toEqual(errorFrame('chunked', 'line_too_long', `limit: ${LIMIT} bytes`));
    expect(await next()).toEqual({ jsonrpc: '2.0', id: 34, result: {} });
  });

  it('drops responses of the client that belong to no request, without an answer', async () => {
    const before = bridge.lines.length;
    write(
      [
        '{"jsonrpc":"2.0","id":35,"result":{}}',
        '{"jsonrpc":"2.0","id":"b-99","result":{}}',
        '{"jsonrpc":"2.0","id":"x-1","error":{"code":-32601,"message":"Method not found"}}',
        '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
        '',
      ].join('\n'),
    );
    await expectOpen(36);
    expect(bridge.lines).toHaveLength(before + 1);
  });

  it('in a session of its own: writes only JSON-RPC lines on stdout, and no content of a bad line on stderr', async () => {
    // Its own bridge, so that this test passes or fails alone.
    const own = startBridge({ bridgeArgs: ['--max-line-bytes', String(LIMIT), '--log-level', 'debug'] });
    own.child.stdin?.write(
      [
        'not json xxxx',
        '{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"' + 'xxxx'.repeat(LIMIT) + '"}}',
        '{"jsonrpc":"1.0","id":7,"method":"ping","xxxx":"not json"}',
        '{"jsonrpc":"2.0","id":"b-1","result":{"xxxx":1},"error":{"code":1,"message":"not json"}}',
        '{"jsonrpc":"2.0","id":"end","method":"ping"}',
        '',
      ].join('\n'),
    );
    await own.nextFrame((frame) => frame.id === 'end');
    expect(own.lines).toHaveLength(4);
    for (const line of own.lines) expect(() => JSON.parse(line) as unknown).not.toThrow();
    expect(own.stderr.filter((line) => line.includes('xxxx') || line.includes('not json'))).toEqual([]);
  });
});
