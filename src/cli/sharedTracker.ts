/**
 * What the shim keeps of a session so that it can report the loss of the shared process as the
 * stdio bridge reports the loss of its upstream (docs/lifecycle.md#lifecycle-upstream-loss,
 * docs/shared.md#shared-loss): the client's requests without an answer yet, and the bridge's
 * requests to the client without one. Plain JSON.parse of whole lines up to a bound; no codec.
 */
import { UPSTREAM_STOPPED_REASON } from '../protocol/cancelReasons.js';
import { bridgeErrorFrame } from '../protocol/errors.js';
import type { RequestId } from '../protocol/jsonrpc.js';

/** Lines longer than this are passed on but not tracked (a request that large is rare). */
export const MAX_TRACKED_LINE_BYTES = 1024 * 1024;

export interface LineTracker {
  /** A piece of a line from the client (`last`: the piece ends the line). */
  readonly fromClient: (piece: Uint8Array, last: boolean) => void;
  /** A piece of a frame line to the client. */
  readonly toClient: (piece: Uint8Array, last: boolean) => void;
  /** The lines that report the loss: an error per request in flight, a cancel per open bridge request. */
  readonly lossLines: () => string[];
}

const idKey = (id: RequestId): string => JSON.stringify(id);
const isId = (value: unknown): value is RequestId => typeof value === 'string' || typeof value === 'number';

/** Collects the pieces of one line up to MAX_TRACKED_LINE_BYTES; undefined once longer. */
function lineCollector(onLine: (frame: Record<string, unknown>) => void) {
  let pieces: Buffer[] = [];
  let bytes = 0;
  let tooLong = false;
  return (piece: Uint8Array, last: boolean): void => {
    if (!tooLong) {
      bytes += piece.length;
      if (bytes > MAX_TRACKED_LINE_BYTES) {
        tooLong = true;
        pieces = [];
      } else pieces.push(Buffer.from(piece));
    }
    if (!last) return;
    const complete = tooLong ? undefined : Buffer.concat(pieces).toString('utf8');
    pieces = [];
    bytes = 0;
    tooLong = false;
    if (complete === undefined) return;
    let frame: unknown;
    try {
      frame = JSON.parse(complete);
    } catch {
      return;
    }
    if (typeof frame === 'object' && frame !== null && !Array.isArray(frame)) {
      onLine(frame as Record<string, unknown>);
    }
  };
}

const cancelledId = (frame: Record<string, unknown>): RequestId | undefined => {
  if (frame['method'] !== 'notifications/cancelled') return undefined;
  const params = frame['params'];
  const id =
    typeof params === 'object' && params !== null
      ? (params as Record<string, unknown>)['requestId']
      : undefined;
  return isId(id) ? id : undefined;
};

export function createLineTracker(): LineTracker {
  /** The client's requests in flight. */
  const requests = new Map<string, RequestId>();
  /** The bridge's requests to the client in flight. */
  const asked = new Map<string, RequestId>();
  /**
   * One side's lines: a request opens an entry of `own`, a cancel closes one of `own` (a party
   * cancels its own requests), an answer closes one of `other`.
   */
  const side = (own: Map<string, RequestId>, other: Map<string, RequestId>) =>
    lineCollector((frame) => {
      const id = frame['id'];
      if (typeof frame['method'] === 'string') {
        if (isId(id)) own.set(idKey(id), id);
        const cancelled = cancelledId(frame);
        if (cancelled !== undefined) own.delete(idKey(cancelled));
        return;
      }
      if (isId(id) && ('result' in frame || 'error' in frame)) other.delete(idKey(id));
    });
  return {
    // A request the client cancelled gets no answer from the bridge: the cancel closes it.
    fromClient: side(requests, asked),
    toClient: side(asked, requests),
    lossLines: () => [
      ...[...requests.values()].map((id) => `${JSON.stringify(bridgeErrorFrame(id, 'upstream_exited'))}\n`),
      ...[...asked.values()].map(
        (id) =>
          `${JSON.stringify({
            jsonrpc: '2.0',
            method: 'notifications/cancelled',
            params: { requestId: id, reason: UPSTREAM_STOPPED_REASON },
          })}\n`,
      ),
    ],
  };
}
