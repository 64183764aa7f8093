/**
 * One session of the HTTP front end (docs/serve.md#serve-sessions): one subscription of the
 * bridge, fed by the POST bodies, and the routing of its frames: a response to the POST that
 * carried its request, a frame a request caused (an input request, progress) to that request's
 * stream, everything else to the GET stream, kept in a bounded buffer while none is open.
 */
import type { ServerResponse } from 'node:http';
import { Subject } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { Logger } from '../../ports/logger.js';
import type { Frame, RequestId } from '../../protocol/jsonrpc.js';
import { isResponse, notification } from '../../protocol/jsonrpc.js';
import type { Inbound } from '../../protocol/parseLine.js';
import { createPostStream, openEventStream } from './streams.js';
import type { EventStream, ExtraHeaders, PostStream } from './streams.js';

/** What a session needs from the server. */
export interface FrontSessionSettings {
  readonly id: string;
  /** The bridge; one subscription is this session. */
  readonly bridge: OperatorFunction<Inbound, Frame>;
  /** The client request whose handling made a frame (a server request, a notification), if any. */
  readonly originOf: (frame: Frame) => RequestId | undefined;
  readonly logger: Logger;
  readonly keepAliveMs: number;
  /** Frames kept for the GET stream while none is open; the oldest go first. */
  readonly maxBufferedFrames: number;
  /** Requests of this session waiting for their response changed by `delta` (the limit of all sessions). */
  readonly onPending: (delta: number) => void;
  /** The session ended (bridge ended, DELETE, idle, stop): the table forgets it. */
  readonly onEnd: (id: string) => void;
}

/** One session. */
export interface FrontSession {
  readonly id: string;
  /** The revision of the initialize result; undefined before it. */
  readonly revision: string | undefined;
  /** Time of the last HTTP request of the session (Date.now()). */
  readonly lastActive: number;
  /** Open GET and POST streams. */
  readonly openStreams: number;
  /** The messages of one POST; `requests` are the ids of its requests, answered on `res`. */
  post(
    messages: readonly Inbound[],
    requests: readonly RequestId[],
    res: ServerResponse,
    headers: ExtraHeaders,
  ): void;
  /** Answers a request without the bridge (a limit of the server), on the stream of its POST. */
  refuse(frame: Frame, id: RequestId): void;
  /** The GET stream; a newer GET replaces an open one. */
  get(res: ServerResponse, headers: ExtraHeaders): void;
  /** Ends the session: its input ends, so its running requests are cancelled upstream. */
  end(reason: string): void;
}

export function createFrontSession(s: FrontSessionSettings): FrontSession {
  const inbound$ = new Subject<Inbound>();
  const pending = new Map<RequestId, PostStream>();
  const posts = new Set<PostStream>();
  const buffer: Frame[] = [];
  let getStream: EventStream | undefined;
  let revision: string | undefined;
  let initializeId: RequestId | undefined;
  let lastActive = Date.now();
  let ended = false;
  let dropped = 0;

  const settle = (id: RequestId): PostStream | undefined => {
    const stream = pending.get(id);
    if (stream !== undefined) {
      pending.delete(id);
      s.onPending(-1);
    }
    return stream;
  };
  const toGet = (frame: Frame): void => {
    if (getStream !== undefined && !getStream.closed) {
      getStream.send(frame);
      return;
    }
    buffer.push(frame);
    if (buffer.length > s.maxBufferedFrames) {
      buffer.shift();
      if (dropped++ === 0) {
        s.logger.log(
          'serve',
          'warn',
          `a session without a GET stream had more than ${s.maxBufferedFrames} frames waiting: the oldest are dropped`,
        );
      }
    }
  };
  const route = (frame: Frame): void => {
    if (isResponse(frame)) {
      const id = frame.id;
      if (id === null) return;
      if (id === initializeId) {
        initializeId = undefined;
        const version = 'result' in frame ? frame.result['protocolVersion'] : undefined;
        if (typeof version === 'string') revision = version;
      }
      settle(id)?.deliver(frame, id);
      return;
    }
    const origin = s.originOf(frame);
    if (origin !== undefined) {
      // Its request's stream; none when the request ended (its frames have no reader).
      pending.get(origin)?.deliver(frame, undefined);
      return;
    }
    toGet(frame);
  };
  const finish = (): void => {
    ended = true;
    for (const id of [...pending.keys()]) settle(id);
    for (const stream of posts) stream.end();
    posts.clear();
    getStream?.end();
    getStream = undefined;
    buffer.length = 0;
    s.onEnd(s.id);
  };

  const session: FrontSession = {
    id: s.id,
    get revision() {
      return revision;
    },
    get lastActive() {
      return lastActive;
    },
    get openStreams() {
      return posts.size + (getStream === undefined || getStream.closed ? 0 : 1);
    },
    post(messages, requests, res, headers) {
      lastActive = Date.now();
      if (requests.length > 0) {
        const stream = createPostStream(res, requests, () => headers, s.keepAliveMs);
        posts.add(stream);
        for (const id of requests) {
          pending.set(id, stream);
          s.onPending(1);
        }
        res.once('close', () => {
          posts.delete(stream);
          lastActive = Date.now();
          if (ended) return;
          // docs/serve.md#serve-sessions: a stream dropped before its responses cancels its
          // requests (no resumption: their frames could reach no one).
          for (const id of [...stream.waiting]) {
            if (settle(id) === undefined) continue;
            inbound$.next({
              kind: 'frame',
              frame: notification('notifications/cancelled', {
                requestId: id,
                reason: 'the client closed the stream of the request',
              }),
            });
          }
        });
      }
      for (const message of messages) {
        if (message.kind === 'frame' && 'method' in message.frame && message.frame.method === 'initialize') {
          if ('id' in message.frame) initializeId = message.frame.id;
        }
        if (ended) return;
        inbound$.next(message);
      }
    },
    refuse(frame, id) {
      settle(id)?.deliver(frame, id);
    },
    get(res, headers) {
      lastActive = Date.now();
      getStream?.end();
      const stream = openEventStream(res, headers, s.keepAliveMs);
      getStream = stream;
      res.once('close', () => {
        lastActive = Date.now();
        if (getStream === stream) getStream = undefined;
      });
      for (const frame of buffer.splice(0)) stream.send(frame);
      dropped = 0;
    },
    end(reason) {
      if (ended) return;
      s.logger.log('serve', 'debug', `session ended: ${reason}`);
      ended = true;
      // The end of input cancels what runs upstream (docs/lifecycle.md#lifecycle-end-of-input).
      inbound$.complete();
      subscription.unsubscribe();
      finish();
    },
  };

  const subscription = inbound$.pipe(s.bridge).subscribe({
    next: route,
    error: () => {
      if (!ended) finish();
    },
    complete: () => {
      if (!ended) finish();
    },
  });
  return session;
}
