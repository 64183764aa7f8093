/**
 * The body of a POST (docs/serve.md#serve-errors): read up to its limit, then parsed with the
 * rules of a client line (docs/lines.md#lines-bad-line), so a bad body gets the same error as a
 * bad line. A JSON array is a batch of 2025-03-26: each member is parsed as a line of its own.
 */
import type { IncomingMessage } from 'node:http';
import { bridgeErrorFrame } from '../../protocol/errors.js';
import type { ErrorFrame } from '../../protocol/jsonrpc.js';
import { parseLine } from '../../protocol/parseLine.js';
import type { Inbound, ParseLimits } from '../../protocol/parseLine.js';

/**
 * What reading a body gave: its bytes; `too_large` above the limit (the rest is not read);
 * `timeout` when it did not end within its time (docs/serve.md#serve-limits: a body that never
 * ends holds no memory for ever); `closed` when the client closed the connection first.
 */
export type BodyRead =
  { readonly kind: 'body'; readonly bytes: Buffer } | { readonly kind: 'too_large' | 'timeout' | 'closed' };

/** Reads the whole body within `timeoutMs`, up to `maxBytes`. */
export function readBody(req: IncomingMessage, maxBytes: number, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve({ kind: 'too_large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (read: BodyRead): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (read.kind !== 'body') {
        chunks.length = 0;
        req.pause();
      }
      resolve(read);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), timeoutMs);
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) finish({ kind: 'too_large' });
      else chunks.push(chunk);
    });
    req.once('end', () => finish({ kind: 'body', bytes: Buffer.concat(chunks) }));
    // An error or a close before the end: the client is gone, there is no one to answer.
    req.once('error', () => finish({ kind: 'closed' }));
    req.once('close', () => finish({ kind: 'closed' }));
  });
}

/** The messages of a body, or the error frame of the first bad one. */
export type ParsedBody =
  | { readonly kind: 'messages'; readonly messages: readonly Inbound[] }
  | { readonly kind: 'bad'; readonly frame: ErrorFrame };

const asBad = (inbound: Inbound & { kind: 'bad' }): ParsedBody => ({
  kind: 'bad',
  frame: bridgeErrorFrame(inbound.id, inbound.cause, 'detail' in inbound ? inbound.detail : undefined),
});

/** Parses a body as one message or a batch; an empty body is not JSON. */
export function parseBody(bytes: Uint8Array, limits: ParseLimits): ParsedBody {
  const one = parseLine({ kind: 'line', bytes }, limits);
  if (one.kind === 'blank') return { kind: 'bad', frame: bridgeErrorFrame(null, 'parse_error') };
  if (one.kind === 'frame') return { kind: 'messages', messages: [one] };
  if (one.cause !== 'invalid_request_shape') return asBad(one);
  // Not a message: it may be a batch, whose members are the lines.
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return asBad(one);
  }
  if (!Array.isArray(value) || value.length === 0) return asBad(one);
  const messages: Inbound[] = [];
  for (const member of value) {
    const inbound = parseLine({ kind: 'line', bytes: Buffer.from(JSON.stringify(member)) }, limits);
    if (inbound.kind === 'bad') return asBad(inbound);
    if (inbound.kind === 'frame') messages.push(inbound);
  }
  return { kind: 'messages', messages };
}
