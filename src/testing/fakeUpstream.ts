/**
 * A scripted in-memory 2026-07-28 server (`createFakeUpstream`): an `UpstreamConnection` for
 * `createBridge`'s `deps.connect`, so that a product tests its chain without a child process or an
 * HTTP server. It answers `server/discover`, the lists, `tools/call` by tool name and
 * `subscriptions/listen` (with the acknowledgment), and records every request it got. Pure: RxJS
 * only, no timer (time is the caller's: return a cold observable of a TestScheduler from a
 * handler).
 */
import { Observable, Subject, isObservable, of, throwError } from 'rxjs';
import type { ExchangeEvent, ExchangeOptions, UpstreamConnection } from '../ports/upstream.js';
import { tookExchangeLog } from '../ports/upstream.js';
import { BridgeError } from '../protocol/bridgeError.js';
import type { Cause } from '../protocol/errors.js';
import { errorResponse, notification, result } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue, NotificationFrame, RequestId } from '../protocol/jsonrpc.js';
import { META_SERVER_INFO, META_SUBSCRIPTION_ID } from '../protocol/metaKey.js';

const LISTEN = 'subscriptions/listen';
const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

const ERROR_BRAND: unique symbol = Symbol('fakeUpstreamError');

/** A JSON-RPC error answer of the fake (`upstreamError`). */
export interface FakeUpstreamError {
  readonly [ERROR_BRAND]: true;
  readonly code: number;
  readonly message: string;
  readonly data?: JsonValue;
}

/** A JSON-RPC error the fake answers with, as a server sends it: `upstreamError(-32602, 'Unknown tool')`. */
export const upstreamError = (code: number, message: string, data?: JsonValue): FakeUpstreamError =>
  data === undefined ? { [ERROR_BRAND]: true, code, message } : { [ERROR_BRAND]: true, code, message, data };

/** A transport failure of the fake: the exchange errors with `new BridgeError(code)`, as an edge's does. */
export const upstreamFailure = (code: Cause, detail?: string): BridgeError =>
  new BridgeError(code, detail === undefined ? {} : { detail });

/**
 * What a handler returns:
 * - a result object: the response (`resultType: 'complete'` is added when it has no
 *   `resultType`, so `inputRequired(...)` of this entry asks for an input round);
 * - `upstreamError(code, message, data?)`: a JSON-RPC error response;
 * - a BridgeError (`upstreamFailure(code)`): the exchange errors with it;
 * - an Observable of ExchangeEvent: the exchange as it is (progress, timing, no answer: `NEVER`).
 * A handler that throws fails the exchange as it is subscribed, as a bug in an edge would.
 */
export type FakeReply = JsonObject | FakeUpstreamError | BridgeError | Observable<ExchangeEvent>;

/** A handler of a method or a tool: the params the bridge sent (with `inputResponses` and `requestState` in a later round) and the request's record. */
export type FakeHandler = (params: JsonObject, request: FakeRequest) => FakeReply;

/** One request the fake got, in order; its handles add frames to its exchange by hand. */
export interface FakeRequest {
  /** The exchange id (from 1); also the `progressToken` of the exchange, as for a real connection. */
  readonly id: number;
  readonly method: string;
  /** The params as the bridge passed them (the fake does not write `_meta.progressToken` into them). */
  readonly params: JsonObject;
  /** `open` until the response, `done` after it or an error or the end, `cancelled` when unsubscribed before. */
  readonly state: 'open' | 'done' | 'cancelled';
  /** The reason the bridge gave (`ExchangeOptions.cancelReason`) when it unsubscribed before the end. */
  readonly cancelReason: string | undefined;
  /** Emits a notification of the exchange (progress, a listen event). Ignored before the bridge subscribed and once the exchange ended. */
  notify(frame: NotificationFrame): void;
  /** Ends the exchange with a reply (see FakeReply; an Observable is not accepted here). */
  reply(reply: JsonObject | FakeUpstreamError | BridgeError): void;
  /** Ends the exchange with no response, as a closed stream. */
  end(): void;
}

/** The listen streams of the fake. */
export interface FakeListen {
  /** Sent on each listen stream right after its acknowledgment (default none). */
  readonly events?: readonly NotificationFrame[];
  /** The acknowledgment's `notifications` (default: what the request asked for). */
  readonly acknowledge?: JsonObject;
}

/** The script of the fake server. Every part is optional. */
export interface FakeUpstreamScript {
  /** `serverInfo` in the `_meta` of the discover result (default `{ name: 'fake', version: '1.0.0' }`). */
  readonly serverInfo?: JsonObject;
  /** The discover capabilities (default: `tools`, `resources`, `prompts` for those the script has; listen-related flags are yours to add). */
  readonly capabilities?: JsonObject;
  /** The tools of `tools/list` (default: one `{ name, inputSchema }` per handler of `tools`). */
  readonly toolList?: readonly JsonObject[];
  /** `tools/call` by tool name; a name without a handler gets -32602 `Unknown tool <name>`. */
  readonly tools?: Readonly<Record<string, FakeHandler>>;
  /** The resources of `resources/list`. */
  readonly resources?: readonly JsonObject[];
  /** The prompts of `prompts/list`. */
  readonly prompts?: readonly JsonObject[];
  /** How `subscriptions/listen` is answered (default: the acknowledgment, then open). */
  readonly listen?: FakeListen;
  /** Handlers by method; they win over the built-in answers (also `server/discover`, `subscriptions/listen`). Other methods get -32601. */
  readonly methods?: Readonly<Record<string, FakeHandler>>;
  /** `UpstreamConnection.remote` (default false). */
  readonly remote?: boolean;
}

/** The fake: the connection for `deps.connect` and the handles of the test. */
export interface FakeUpstream {
  /** What `deps.connect()` returns: `connect: () => of(fake.connection)`. */
  readonly connection: UpstreamConnection;
  /** Every request, in the order the bridge made them. */
  readonly requests: readonly FakeRequest[];
  /** The requests of one method, in order. */
  requestsOf(method: string): FakeRequest[];
  /** Sends a listen event on every open listen stream, tagged with its subscription id. */
  emitListen(method: string, params?: JsonObject): void;
  /** Emits a notification of no exchange (`notifications/message`) on `notifications$`. */
  notify(frame: NotificationFrame): void;
  /** Emits `exit$`: the upstream is gone (a stdio child exited). */
  exit(code: number | null, signal?: string | null): void;
  /** True once the bridge called `close()`. */
  readonly closed: boolean;
}

const isFakeError = (value: unknown): value is FakeUpstreamError =>
  typeof value === 'object' && value !== null && ERROR_BRAND in value;

/** The events of a reply that is no Observable. */
function replyEvents(
  id: RequestId,
  reply: JsonObject | FakeUpstreamError | BridgeError,
): Observable<ExchangeEvent> {
  if (reply instanceof BridgeError) return throwError(() => reply);
  if (isFakeError(reply)) {
    const { code, message, data } = reply;
    const error = data === undefined ? { code, message } : { code, message, data };
    return of({ type: 'response', frame: errorResponse(id, error) });
  }
  const value = typeof reply['resultType'] === 'string' ? reply : { resultType: 'complete', ...reply };
  return of({ type: 'response', frame: result(id, value) });
}

/** Creates a scripted in-memory 2026-07-28 server; see FakeUpstreamScript and README "Use the library". */
export function createFakeUpstream(script: FakeUpstreamScript = {}): FakeUpstream {
  const requests: FakeRequest[] = [];
  const notifications$ = new Subject<NotificationFrame>();
  const exit$ = new Subject<{ readonly code: number | null; readonly signal: string | null }>();
  const listening = new Set<FakeRequest>();
  let closed = false;
  let nextId = 1;

  const capabilities = (): JsonObject =>
    script.capabilities ?? {
      ...(script.tools !== undefined || script.toolList !== undefined ? { tools: {} } : {}),
      ...(script.resources !== undefined ? { resources: {} } : {}),
      ...(script.prompts !== undefined ? { prompts: {} } : {}),
    };

  const listen: FakeHandler = (params, request) => {
    const asked = params['notifications'];
    const ack = notification(ACKNOWLEDGED, {
      notifications: script.listen?.acknowledge ?? (typeof asked === 'object' && asked !== null ? asked : {}),
      _meta: { [META_SUBSCRIPTION_ID]: request.id },
    });
    const events = (script.listen?.events ?? []).map((frame) => tagged(frame, request.id));
    return new Observable<ExchangeEvent>((subscriber) => {
      for (const frame of [ack, ...events]) subscriber.next({ type: 'notification', frame });
      listening.add(request);
      return () => listening.delete(request);
    });
  };

  const builtIn: Readonly<Record<string, FakeHandler>> = {
    'server/discover': () => ({
      capabilities: capabilities(),
      _meta: { [META_SERVER_INFO]: script.serverInfo ?? { name: 'fake', version: '1.0.0' } },
    }),
    'tools/list': () => ({
      tools: [
        ...(script.toolList ??
          Object.keys(script.tools ?? {}).map((name) => ({ name, inputSchema: { type: 'object' } }))),
      ],
    }),
    'resources/list': () => ({ resources: [...(script.resources ?? [])] }),
    'prompts/list': () => ({ prompts: [...(script.prompts ?? [])] }),
    'tools/call': (params, request) => {
      const name = params['name'];
      const tool = typeof name === 'string' ? script.tools?.[name] : undefined;
      return tool === undefined
        ? upstreamError(-32602, `Unknown tool ${typeof name === 'string' ? name : JSON.stringify(name)}`)
        : tool(params, request);
    },
    [LISTEN]: listen,
  };

  const request = (
    method: string,
    params: JsonObject,
    options: ExchangeOptions = {},
  ): Observable<ExchangeEvent> =>
    // Cold, as the port says: each subscription is a request of its own.
    new Observable<ExchangeEvent>((subscriber) => {
      const id = nextId++;
      const manual = new Subject<ExchangeEvent>();
      const record = {
        id,
        method,
        params,
        state: 'open' as FakeRequest['state'],
        cancelReason: undefined as string | undefined,
        notify: (frame: NotificationFrame) => manual.next({ type: 'notification', frame }),
        reply: (reply: JsonObject | FakeUpstreamError | BridgeError) =>
          replyEvents(id, reply).subscribe({
            next: (event) => manual.next(event),
            error: (error: unknown) => manual.error(error),
          }),
        end: () => manual.complete(),
      };
      requests.push(record);
      const handler = script.methods?.[method] ?? builtIn[method];
      const reply: FakeReply =
        handler === undefined ? upstreamError(-32601, 'Method not found') : handler(params, record);
      const scripted$ = isObservable(reply) ? reply : replyEvents(id, reply);
      const finish = (): void => {
        if (record.state === 'open') record.state = 'done';
      };
      const sink = {
        next: (event: ExchangeEvent) => {
          if (record.state !== 'open') return;
          // As a real upstream: a log message goes to the exchange's `logs`, if any.
          if (event.type === 'notification' && tookExchangeLog(options, event.frame)) return;
          subscriber.next(event);
          if (event.type === 'response') {
            finish();
            subscriber.complete();
          }
        },
        error: (error: unknown) => {
          finish();
          subscriber.error(error);
        },
        complete: () => {
          finish();
          subscriber.complete();
        },
      };
      const fromHand = manual.subscribe(sink);
      const fromScript = scripted$.subscribe(sink);
      // The record says it was cancelled before the handler's stream sees the unsubscribe.
      return () => {
        if (record.state === 'open') {
          record.state = 'cancelled';
          record.cancelReason = options.cancelReason?.();
        }
        fromHand.unsubscribe();
        fromScript.unsubscribe();
      };
    });

  const connection: UpstreamConnection = {
    request,
    notifications$: notifications$.asObservable(),
    exit$: exit$.asObservable(),
    remote: script.remote ?? false,
    close: () => {
      closed = true;
    },
  };
  return {
    connection,
    requests,
    requestsOf: (method) => requests.filter((record) => record.method === method),
    emitListen: (method, params) => {
      for (const record of [...listening]) record.notify(tagged(notification(method, params), record.id));
    },
    notify: (frame) => notifications$.next(frame),
    exit: (code, signal = null) => exit$.next({ code, signal }),
    get closed() {
      return closed;
    },
  };
}

/** A listen event tagged with the subscription id of its stream. */
function tagged(frame: NotificationFrame, id: number): NotificationFrame {
  const params = frame.params ?? {};
  const meta = params['_meta'];
  const kept = typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? meta : {};
  return notification(frame.method, { ...params, _meta: { ...kept, [META_SUBSCRIPTION_ID]: id } });
}
