/**
 * The loopback receiver of the sign-in (docs/sign-in.md#sign-in-receiver, docs/security.md#security-rules items 5, 6; SECURITY.md
 * requirements 5, 6 and 14): an HTTP server on `127.0.0.1:<redirect port>` only, that serves the
 * one-time start path and waits for the redirect of the authorization server on `/callback`.
 *
 * Owner check (Linux): each connection is held unread until the owner of its client socket is
 * known from `/proc/net/tcp`; a connection of another user is destroyed before a byte of it is
 * read; root's pass (ownerGate.ts). A connection whose row is not found is looked up once more
 * after 25 ms, then accepted unchecked (it comes from outside this network namespace). Where the
 * table cannot be read (macOS, Windows) connections are accepted unchecked, and the
 * sign-in waits `startWatchMs` after the code for a second request of the start URL instead.
 *
 * Limits (docs/sign-in.md#sign-in-receiver): the request head must arrive within 10 s and hold at most 16 KiB (else 431), and
 * exactly one `Host` header (else 400); at most 16 connections at once: a 17th pushes out the
 * oldest connection that has not sent a complete head (so idle connections cannot lock the browser
 * out), and is closed only when all 16 have sent theirs; `close()` gives open responses 2 s before
 * it destroys their connections. Every response closes its connection, so one connection carries
 * one request and the head limit bounds the life of every connection.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import type { Socket } from 'node:net';
import type { Logger } from '../ports/logger.js';
import { connectionTable } from './loopback/connections.js';
import { sendPage } from './loopback/pages.js';
import { ownerGate } from './loopback/ownerGate.js';
import { procNetOwner } from './loopback/peerOwner.js';
import type { PeerOwnerLookup } from './loopback/peerOwner.js';
import { armWait, onCallback, onStart, stopWait, watchStart } from './loopback/wait.js';
import { listenReceiver } from './loopback/listen.js';
import type { RedirectResult, Wait } from './loopback/wait.js';
import { newStartToken } from './startUrl.js';
import { loopbackRedirectUri } from './store/identity.js';
import type { RandomSource } from './startUrl.js';

export type { RedirectResult } from './loopback/wait.js';

export interface ReceiverLimits {
  /** Time for the whole request head, from accept (ms). */
  readonly headTimeoutMs: number;
  /** Size of the request head (request line and headers, bytes); larger gets 431. */
  readonly maxHeadBytes: number;
  /** Connections at once; one more pushes out the oldest without a complete head. */
  readonly maxConnections: number;
  /** Time `close()` (and a refused head) gives a connection before it is destroyed (ms). */
  readonly closeGraceMs: number;
  /** Wait before the second owner lookup of a connection whose row was not found (ms). */
  readonly ownerRetryMs: number;
  /**
   * Time the start path stays watched after the code when the 303 went to a connection whose
   * owner could not be checked: a second GET in it discards the sign-in (ms).
   */
  readonly startWatchMs: number;
}

/** docs/sign-in.md#sign-in-receiver; SECURITY.md requirement 14 for the last two. */
export const RECEIVER_LIMITS: ReceiverLimits = {
  headTimeoutMs: 10_000,
  maxHeadBytes: 16 * 1024,
  maxConnections: 16,
  closeGraceMs: 2_000,
  ownerRetryMs: 25,
  startWatchMs: 30_000,
};

export interface ExpectInput {
  readonly state: string;
  readonly authorizationUrl: string;
  /** Serve a start URL (the bridge opens a browser); false for `--no-browser` and elicitations. */
  readonly withStartUrl: boolean;
  /**
   * Abort when the sign-in ends for any reason (time limit, cancel, after the token exchange):
   * from then on the start path answers 404 and the callback 400; a pending result rejects
   * with the abort reason.
   */
  readonly signal?: AbortSignal;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUri: string;
  /**
   * Arms the wait for `state`; returns the one-time start URL (when `withStartUrl` and random data
   * is available) that 303s once to `authorizationUrl`. Throws while another wait is before its
   * redirect (one sign-in at a time, docs/sign-in.md#sign-in-trigger). `result` rejects with a `BridgeError` of cause
   * `sign_in_start_reused` on a second start GET before the redirect. After the token exchange,
   * `confirm()` resolves when the sign-in may be used and rejects with `sign_in_hijacked` on a
   * second start GET after the redirect (see `watchStart`).
   */
  expect(input: ExpectInput): {
    startUrl?: string;
    result: Promise<RedirectResult>;
    confirm: () => Promise<void>;
  };
  /** Stops the server and releases the port; a pending result rejects. */
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The redirect port; 0 picks a free one (tests). */
  readonly port: number;
  readonly logger: Logger;
  readonly limits?: Partial<ReceiverLimits>;
  /** Random bytes for the start token (tests inject a failing source). */
  readonly random?: RandomSource;
  /** The owner of a client socket (tests inject another user); default: `/proc/net/tcp`. */
  readonly peerOwner?: PeerOwnerLookup;
  /** The uid the owner must have; default: the effective uid (none on Windows: no check). */
  readonly uid?: number | undefined;
}

const HOST = '127.0.0.1';
const SCOPE = 'oauth';
const REASONS: Record<number, string> = { 400: 'Bad Request', 431: 'Request Header Fields Too Large' };

/**
 * True for the Host header a browser sends to the receiver: `127.0.0.1:<port>`, or `127.0.0.1`
 * on port 80 (the default port is left out). Any other name is refused, so that a web page cannot
 * reach the receiver under its own name through DNS rebinding. Takes every `Host` header of the
 * request: more than one is refused (RFC 9112 §3.2), as Node keeps only the first in `headers`.
 */
export function isReceiverHost(hosts: readonly string[] | string | undefined, port: number): boolean {
  const all = typeof hosts === 'string' ? [hosts] : (hosts ?? []);
  if (all.length !== 1) return false;
  const value = all[0]!.toLowerCase();
  return value === `${HOST}:${port}` || (port === 80 && value === HOST);
}

/** The start token of a wait, when it serves a start URL; none (with a warning) without random data. */
function startToken(input: ExpectInput, options: ReceiverOptions): string | undefined {
  if (!input.withStartUrl) return undefined;
  const token = newStartToken(options.random);
  if (token === undefined) {
    // The caller logs `the browser did not open: …` when it gets no start URL (docs/sign-in.md#sign-in-receiver).
    options.logger.log(
      SCOPE,
      'warn',
      'the bridge has no random data for the start URL, thus it does not open the browser',
    );
  }
  return token;
}

/** What the HTTP server of the receiver needs to know of it. */
interface Routes {
  readonly connections: ReturnType<typeof connectionTable>;
  readonly limits: ReceiverLimits;
  readonly logger: Logger;
  readonly wait: () => Wait | undefined;
  readonly port: () => number;
}

/** The HTTP side: the start path, the callback, and a refused head answered before its close. */
function receiverHttp(routes: Routes): ReturnType<typeof createServer> {
  const { connections, limits, logger } = routes;
  const route = (request: IncomingMessage, response: ServerResponse): void => {
    const target = request.url ?? '';
    const port = routes.port();
    // Origin-form only, and only our own host: no absolute-form target, no DNS-rebinding name.
    if (!target.startsWith('/') || !isReceiverHost(request.headersDistinct.host, port)) {
      return sendPage(response, 'bad');
    }
    // Appended, not resolved: `//host/path` stays a path of ours.
    const url = new URL(`http://${HOST}:${port}${target}`);
    if (url.pathname === '/callback') return onCallback(routes.wait(), url, request, response, logger);
    if (url.pathname.startsWith('/start/')) {
      const checked = connections.checked(request.socket);
      return onStart(routes.wait(), url.pathname.slice('/start/'.length), request, response, logger, checked);
    }
    sendPage(response, 'notFound');
  };
  const http = createServer({ maxHeaderSize: limits.maxHeadBytes }, (request, response) => {
    connections.answered(request.socket, limits.closeGraceMs);
    try {
      route(request, response);
    } catch (error) {
      // A handler that throws must not stop the bridge (an uncaught exception would).
      logger.log(SCOPE, 'warn', `the loopback receiver failed on a request: ${(error as Error).name}`);
      request.socket.destroy();
    }
  });
  http.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    if (status === 431)
      logger.log(SCOPE, 'warn', 'the loopback receiver refused a request head that is too large');
    if (!socket.writable || socket.bytesWritten > 0) return void socket.destroy();
    // end(), not destroy(): a reset could drop the status line before the client reads it.
    socket.end(`HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    connections.answered(socket, limits.closeGraceMs);
  });
  return http;
}

/** Starts the receiver; rejects with cause `redirect_port_unavailable` when it cannot listen. */
export async function startReceiver(options: ReceiverOptions): Promise<Receiver> {
  const limits: ReceiverLimits = { ...RECEIVER_LIMITS, ...options.limits };
  const { logger } = options;
  const connections = connectionTable(limits);
  const warned = new Set<string>();
  // Once per receiver: a flood of refused or pushed-out connections must not flood the log.
  const warnOnce = (text: string): void => {
    if (warned.has(text)) return;
    warned.add(text);
    logger.log(SCOPE, 'warn', text);
  };
  let wait: Wait | undefined;
  let port = options.port;
  let closing: Promise<void> | undefined;

  const http = receiverHttp({ connections, limits, logger, wait: () => wait, port: () => port });
  // Hands a connection to HTTP: until then not a byte of it is read (pauseOnConnect).
  const admit = (socket: Socket, checked: boolean): void => {
    if (socket.destroyed || closing !== undefined) return void socket.destroy();
    const { admitted, evicted } = connections.admit(socket, checked);
    if (evicted) {
      warnOnce(
        `the loopback receiver has ${limits.maxConnections} connections open: it closed the oldest one that sent no request`,
      );
    }
    if (!admitted) return;
    http.emit('connection', socket);
    socket.resume();
  };
  const gate = ownerGate({
    lookup: options.peerOwner ?? procNetOwner,
    uid: 'uid' in options ? options.uid : process.geteuid?.(),
    retryMs: limits.ownerRetryMs,
    local: () => ({ address: HOST, port }),
    refused: warnOnce,
  });
  const server = createNetServer({ pauseOnConnect: true }, (socket) => {
    socket.on('error', () => socket.destroy());
    gate(socket, (checked) => admit(socket, checked));
  });
  port = await listenReceiver(server, HOST, options.port, logger);

  return {
    // One definition with the storage identity and the client metadata documents (site/*/client.json).
    redirectUri: loopbackRedirectUri(port),
    expect(input) {
      if (closing !== undefined) throw new Error('the loopback receiver is closed');
      if (wait?.phase === 'waiting') throw new Error('the loopback receiver already waits for a sign-in');
      // The caller checks the URL first (authorizationUrl.ts); a line break here would split the 303 head.
      if (!/^[\x21-\x7e]+$/.test(input.authorizationUrl)) {
        throw new Error('the authorization URL holds characters outside visible ASCII');
      }
      const token = startToken(input, options);
      const armed = armWait(input, token);
      wait = armed.wait;
      const { result } = armed;
      const confirm = (): Promise<void> => watchStart(armed.wait, limits.startWatchMs, logger);
      return token === undefined
        ? { result, confirm }
        : { startUrl: `http://${HOST}:${port}/start/${token}`, result, confirm };
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        stopWait(wait, new Error('the loopback receiver closed before the redirect'));
        server.close(() => resolve());
        // Connections without a request are closed now; a response in progress gets the grace.
        connections.closeAll(limits.closeGraceMs);
      });
      return closing;
    },
  };
}
