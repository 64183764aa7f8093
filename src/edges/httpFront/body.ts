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

/** Reads the whole body; `undefined` when it is larger than `maxBytes` (the rest is not read). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      resolve(undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxBytes) {
        done = true;
        chunks.length = 0;
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.once('end', () => {
      if (!done) resolve(Buffer.concat(chunks));
    });
    req.once('error', (error) => {
      if (!done) reject(error);
    });
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
