/**
 * The requests in flight of one session of the HTTP front end (docs/serve.md#serve-sessions), each
 * keyed by its id, with the stream of the POST that carried it and the end of its place in the
 * limit of all sessions. This one map is the whole state: its size is the session's count, and a
 * request leaves it exactly once, whatever ends it, so no count can drift beside it.
 */
import type { RequestId } from '../../protocol/jsonrpc.js';
import type { PostStream } from './streams.js';

interface Entry {
  readonly stream: PostStream;
  /** Frees the request's place of the limit of all sessions; set once it was admitted. */
  left: (() => void) | undefined;
}

/** The requests in flight of one session. */
export interface SessionRequests {
  /** Requests in flight now. */
  readonly size: number;
  /** Adds a request; false when a request with this id is in flight already (it is not added). */
  add(id: RequestId, stream: PostStream): boolean;
  /** The stream of a request in flight. */
  streamOf(id: RequestId): PostStream | undefined;
  /** Calls `left` when the request leaves; at once when it is not in flight. */
  onLeave(id: RequestId, left: () => void): void;
  /** The request leaves: its stream, or undefined when it was not in flight. */
  take(id: RequestId): PostStream | undefined;
  /** The ids of the requests in flight whose POST is `stream`. */
  idsOf(stream: PostStream): RequestId[];
  /** The ids of every request in flight. */
  ids(): RequestId[];
  /** Every request leaves: their streams, each once. */
  takeAll(): Set<PostStream>;
}

export function createSessionRequests(): SessionRequests {
  const entries = new Map<RequestId, Entry>();
  const take = (id: RequestId): PostStream | undefined => {
    const entry = entries.get(id);
    if (entry === undefined) return undefined;
    entries.delete(id);
    entry.left?.();
    return entry.stream;
  };
  return {
    get size() {
      return entries.size;
    },
    add(id, stream) {
      if (entries.has(id)) return false;
      entries.set(id, { stream, left: undefined });
      return true;
    },
    streamOf: (id) => entries.get(id)?.stream,
    onLeave(id, left) {
      const entry = entries.get(id);
      if (entry === undefined) left();
      else entry.left = left;
    },
    take,
    ids: () => [...entries.keys()],
    idsOf: (stream) => [...entries].filter(([, entry]) => entry.stream === stream).map(([id]) => id),
    takeAll() {
      const streams = new Set<PostStream>();
      for (const id of [...entries.keys()]) {
        const stream = take(id);
        if (stream !== undefined) streams.add(stream);
      }
      return streams;
    },
  };
}
