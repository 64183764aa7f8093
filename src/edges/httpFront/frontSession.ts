/**
 * One session of the HTTP front end (docs/serve.md#serve-sessions): one subscription of the
 * bridge, fed by the POST bodies, and the routing of its frames: an answer to the POST that
 * carried its request, a frame a request caused (an input request, progress) to that request's
 * stream, everything else to the GET stream (listenStream.ts). Its requests in flight are one
 * keyed map (sessionRequests.ts); its messages reach the bridge through the in-flight limit of
 * all sessions (sessionTable.ts); its idle clock (sessionIdle.ts) runs on the given scheduler.
 */
import { Subject } from 'rxjs';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';
import type { Logger } from '../../ports/logger.js';
import type { RoutedFrame } from '../../ports/routedFrame.js';
import type { Frame, RequestId } from '../../protocol/jsonrpc.js';
import { isResponse } from '../../protocol/jsonrpc.js';
import type { Inbound } from '../../protocol/parseLine.js';
import type { Exchange } from './exchange.js';
import { createListenStream } from './listenStream.js';
import { cancelAsDropped, postMessages } from './sessionPost.js';
import { createSessionOutput } from './sessionOutput.js';
import { createSessionRequests } from './sessionRequests.js';
import { createIdleClock } from './sessionIdle.js';
import { createInitializeWatch } from './sessionInitialize.js';
import type { ExtraHeaders } from './streams.js';

/** One message on its way into a session, through the in-flight limit of all sessions. */
export interface Admission {
  readonly inbound: Inbound;
  /** Gives the message to the session's bridge; completes when its request leaves the session. */
  readonly run: Observable<never>;
  /** Answers the request with `too_many_requests` instead; completes at once. */
  readonly refuse: Observable<never>;
}

/** What a session needs from the table. */
export interface FrontSessionSettings {
  readonly id: string;
  /** The bridge; one subscription is this session. */
  readonly bridge: OperatorFunction<Inbound, RoutedFrame>;
  readonly logger: Logger;
  /** Frames kept for the GET stream while none is open; the oldest go first. */
  readonly maxBufferedFrames: number;
  /** A session without a request in flight and without an open stream ends after this. */
  readonly sessionIdleMs: number;
  /** Most bytes of output the client may leave unread (sessionOutput.ts). */
  readonly maxSessionBufferBytes: number;
  /** The interval of the check of unread output (the keep-alive interval). */
  readonly keepAliveMs: number;
  /** The clock of the idle timer, of `lastActive` and of the check of unread output. */
  readonly scheduler: SchedulerLike;
  /** Each message of a POST, in order: the table runs or refuses it. */
  readonly admit: (admission: Admission) => void;
  /** The session ended (bridge ended, DELETE, idle, initialize failed, stop): the table forgets it. */
  readonly onEnd: (id: string) => void;
}

/** One session. */
export interface FrontSession {
  readonly id: string;
  /** The revision of the initialize result; undefined before it. */
  readonly revision: string | undefined;
  /** Time of the last HTTP request or stream end of the session, on the scheduler's clock. */
  readonly lastActive: number;
  /** Requests in flight. */
  readonly inFlight: number;
  /** Open GET and POST streams. */
  readonly openStreams: number;
  /** The messages of one POST, answered on `exchange`. */
  post(messages: readonly Inbound[], exchange: Exchange, headers: ExtraHeaders): void;
  /** The GET stream; a newer GET replaces an open one. */
  get(exchange: Exchange, headers: ExtraHeaders): void;
  /** Ends the session: its input ends, so its running requests are cancelled upstream. */
  end(reason: string): void;
}

export function createFrontSession(s: FrontSessionSettings): FrontSession {
  const inbound$ = new Subject<Inbound>();
  const requests = createSessionRequests();
  const listen = createListenStream(s.maxBufferedFrames, s.logger);
  const initialize = createInitializeWatch();
  const posts = { open: 0 };
  let ended = false;
  const openStreams = (): number => posts.open + (listen.open ? 1 : 0);
  const idle = createIdleClock({
    scheduler: s.scheduler,
    idleMs: s.sessionIdleMs,
    busy: () => ended || requests.size > 0 || openStreams() > 0,
    onIdle: () => {
      s.logger.log(
        'serve',
        'info',
        `a session was idle for ${Math.round(s.sessionIdleMs / 1000)} s: it ends`,
      );
      session.end('idle');
    },
  });
  // docs/serve.md#serve-limits: a client that does not read loses its session, alone.
  const output = createSessionOutput({
    maxBytes: s.maxSessionBufferBytes,
    checkEveryMs: s.keepAliveMs,
    scheduler: s.scheduler,
    waiting: () => listen.waitingBytes,
    onOverflow: (queued) => {
      s.logger.log(
        'serve',
        'warn',
        `a session left ${queued} bytes of its output unread, more than ${s.maxSessionBufferBytes}: its streams close and it ends`,
      );
      cancelAsDropped(requests.ids(), { requests, input: (m) => inbound$.next(m) });
      output.closeAll();
      session.end('its client does not read');
    },
  });

  const withId = (headers: ExtraHeaders): ExtraHeaders =>
    ended ? headers : { ...headers, 'mcp-session-id': s.id };
  const answer = (frame: Frame & { id: RequestId | null }): void => {
    if (frame.id === null) return;
    const failedInit = initialize.answered(frame) === 'failed';
    if (failedInit) ended = true; // its answer carries no session id: the session is gone
    requests.take(frame.id)?.deliver(frame, true);
    // docs/serve.md#serve-sessions: a client retries an initialize with a new session.
    if (failedInit) stop('its initialize failed');
    else idle.check(false);
  };
  const route = ({ frame, origin }: RoutedFrame): void => {
    if (isResponse(frame)) return answer(frame);
    // Its request's stream; none when the request ended (its frames have no reader).
    if (origin !== undefined) requests.streamOf(origin)?.deliver(frame, false);
    else if (output.admits()) listen.send(frame);
  };
  const finish = (): void => {
    ended = true;
    idle.stop();
    output.stop();
    for (const stream of requests.takeAll()) stream.end();
    listen.end();
    s.onEnd(s.id);
  };
  const stop = (reason: string): void => {
    s.logger.log('serve', 'debug', `session ended: ${reason}`);
    ended = true;
    // The end of input cancels what runs upstream (docs/lifecycle.md#lifecycle-end-of-input).
    inbound$.complete();
    subscription.unsubscribe();
    finish();
  };

  const session: FrontSession = {
    id: s.id,
    get revision() {
      return initialize.revision;
    },
    get lastActive() {
      return idle.lastActive;
    },
    get inFlight() {
      return requests.size;
    },
    get openStreams() {
      return openStreams();
    },
    post(messages, exchange, headers) {
      if (ended) return;
      postMessages(messages, exchange, {
        requests,
        headers: () => withId(headers),
        ended: () => ended,
        input: (message) => {
          initialize.sent(message);
          inbound$.next(message);
        },
        admit: s.admit,
        streams: posts,
        closed: () => idle.check(true),
        guard: output,
      });
      idle.check(true);
    },
    get(exchange, headers) {
      if (ended) return;
      const stream = exchange.eventStream(withId(headers), output);
      listen.attach(stream);
      idle.check(true);
      exchange.onClose(() => idle.check(true));
    },
    end(reason) {
      if (!ended) stop(reason);
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
  idle.check(false);
  return session;
}
