/**
 * The response streams of the HTTP front end (docs/serve.md#serve-responses): a JSON reply, an
 * event stream with keep-alive comments, and the stream of one POST, which answers with JSON when
 * its one request's response is the first frame and turns into an event stream otherwise.
 */
import type { ServerResponse } from 'node:http';
import type { Frame, JsonObject } from '../../protocol/jsonrpc.js';
import type { OutputGuard } from './sessionOutput.js';

/** Headers every reply of the front end carries (CORS, when the Origin is allowed). */
export type ExtraHeaders = Readonly<Record<string, string>>;

/** Writes one JSON body and ends the response. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: JsonObject | Frame | undefined,
  headers: ExtraHeaders = {},
): void {
  if (res.headersSent || res.writableEnded) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/** An open event stream. */
export interface EventStream {
  send(frame: Frame): void;
  end(): void;
  readonly closed: boolean;
}

/**
 * Most bytes an event stream may hold unwritten: a client that stops reading loses its stream
 * (closed as a dropped one, which cancels its requests) instead of growing the process
 * (docs/serve.md#serve-limits).
 */
export const MAX_UNWRITTEN_BYTES = 16 * 1024 * 1024;

/** The guard of a stream outside any session: it admits every write. */
export const NO_GUARD: OutputGuard = { track: () => () => undefined, admits: () => true };

/** Starts an event stream on `res`; a comment every `keepAliveMs` keeps proxies and clients from timing out. */
export function openEventStream(
  res: ServerResponse,
  headers: ExtraHeaders,
  keepAliveMs: number,
  maxUnwrittenBytes = MAX_UNWRITTEN_BYTES,
  guard: OutputGuard = NO_GUARD,
): EventStream {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  let closed = false;
  // docs/serve.md#serve-limits: the unread output of the whole session is bounded too.
  res.once('close', guard.track(res));
  const write = (text: string): void => {
    if (!guard.admits()) return;
    res.write(text);
    if (res.writableLength > maxUnwrittenBytes) res.destroy();
  };
  const timer = setInterval(() => {
    if (!closed) write(': keep-alive\n\n');
  }, keepAliveMs);
  timer.unref();
  const stop = (): void => {
    closed = true;
    clearInterval(timer);
  };
  res.once('close', stop);
  return {
    send(frame) {
      if (closed || res.destroyed) return;
      write(`event: message\ndata: ${JSON.stringify(frame)}\n\n`);
    },
    end() {
      if (closed) return;
      stop();
      res.end();
    },
    get closed() {
      return closed || res.destroyed;
    },
  };
}

/** The stream of one POST that carried requests. */
export interface PostStream {
  /** A frame for this POST; `final` when it is the one answer of one of its requests. */
  deliver(frame: Frame, final: boolean): void;
  /** One of its requests gets no answer (it was cancelled); the stream ends after the last. */
  unanswered(): void;
  /** Ends the stream whatever is still waiting (the session ended). */
  end(): void;
}

/**
 * A POST with `expected` requests. One request whose answer comes first gets a JSON reply;
 * anything else (more requests, a server request or notification first, or no frame within
 * `keepAliveMs`) opens an event stream, which ends after the last answer. Each request gets
 * exactly one `deliver(…, true)` or one `unanswered()`, so a count is all the stream needs.
 */
export function createPostStream(
  res: ServerResponse,
  expected: number,
  headers: () => ExtraHeaders,
  keepAliveMs: number,
  maxUnwrittenBytes = MAX_UNWRITTEN_BYTES,
  guard: OutputGuard = NO_GUARD,
): PostStream {
  let remaining = expected;
  let stream: EventStream | undefined;
  const open = (): EventStream =>
    (stream ??= openEventStream(res, headers(), keepAliveMs, maxUnwrittenBytes, guard));
  res.once('close', guard.track(res));
  const early = setTimeout(open, keepAliveMs);
  early.unref();
  res.once('close', () => clearTimeout(early));
  const end = (): void => {
    clearTimeout(early);
    remaining = 0;
    // An event stream without an answer: the client sees its request end unanswered.
    open().end();
  };
  return {
    deliver(frame, final) {
      clearTimeout(early);
      if (final) remaining -= 1;
      if (stream === undefined && expected === 1 && final) {
        if (guard.admits()) sendJson(res, 200, frame, headers());
        return;
      }
      open().send(frame);
      if (remaining <= 0) stream?.end();
    },
    unanswered() {
      remaining -= 1;
      if (remaining <= 0) end();
    },
    end,
  };
}
