/**
 * The one upstream of all sessions of `serve` (docs/serve.md#serve-sessions): connected on the
 * first `initialize`, again after the child exited or a connect failed. Each session gets a view
 * of its own whose `close` ends only the view: a session that ends never closes the upstream of
 * the others.
 *
 * A log message of a stdio upstream carries no request (2026-07-28 shares one channel), so the
 * views attribute it (docs/serve.md#serve-routing): a server logs only while a request that
 * carried a log level runs, so the message goes to the one session with such a request in
 * flight. With none it belongs to no request and goes to every session; with several sessions it
 * cannot be told whose it is and goes to none, since another session must never read it.
 * (A log message of an HTTP upstream arrives in its exchange and goes to the exchange's `logs`,
 * ExchangeOptions.logs, which src/bridge/sessionUpstream.ts names.)
 */
import { Observable, Subject, defer, map, of, shareReplay, take, tap } from 'rxjs';
import type { UpstreamState } from '../edges/httpFront/health.js';
import type { Logger } from '../ports/logger.js';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';
import type { JsonObject, NotificationFrame } from '../protocol/jsonrpc.js';
import { isObject } from '../protocol/jsonrpc.js';
import { META_LOG_LEVEL } from '../protocol/metaKey.js';

/** One session's view, as the attribution of log messages sees it. */
interface View {
  readonly connection: UpstreamConnection;
  /** Exchanges of the session in flight that asked for log messages (a `logLevel` in `_meta`). */
  logging: number;
  readonly logs: Subject<NotificationFrame>;
}

const asksForLogs = (params: JsonObject): boolean => {
  const meta = params['_meta'];
  return isObject(meta) && meta[META_LOG_LEVEL] !== undefined;
};

/** A view's `request`: an exchange that asked for log messages counts in `view.logging` while it runs. */
const countingRequest =
  (view: View): UpstreamConnection['request'] =>
  (method, params, options) => {
    const { connection } = view;
    if (!asksForLogs(params)) return connection.request(method, params, options);
    return new Observable<ExchangeEvent>((subscriber) => {
      view.logging += 1;
      const exchange = connection.request(method, params, options).subscribe({
        next: (event) => subscriber.next(event),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => {
        view.logging -= 1;
        exchange.unsubscribe();
      };
    });
  };

/** The upstream of `connect` shared by every session; `close` stops it. */
export function sharedUpstream(connect: () => Observable<UpstreamConnection>, logger: Logger) {
  let current: UpstreamConnection | undefined;
  let connecting$: Observable<UpstreamConnection> | undefined;
  // docs/serve.md#serve-health: idle until the first initialize, down after an exit or a failed connect.
  let state: UpstreamState = 'idle';
  let closed = false;
  const views = new Set<View>();

  /** The sessions a log message of `connection` goes to (docs/serve.md#serve-routing). */
  const route = (connection: UpstreamConnection, frame: NotificationFrame): void => {
    const own = [...views].filter((view) => view.connection === connection);
    const logging = own.filter((view) => view.logging > 0);
    if (logging.length > 1) {
      logger.log(
        'serve',
        'debug',
        `dropped a log message of the upstream server: requests of ${logging.length} sessions were running, and it names none`,
      );
      return;
    }
    for (const view of logging.length === 1 ? logging : own) view.logs.next(frame);
  };

  const viewOf = (connection: UpstreamConnection): UpstreamConnection => {
    const view: View = { connection, logging: 0, logs: new Subject() };
    views.add(view);
    return {
      ...connection,
      request: countingRequest(view),
      notifications$: view.logs.asObservable(),
      close: () => {
        views.delete(view);
        view.logs.complete();
      },
    };
  };

  const adopt = (connection: UpstreamConnection): void => {
    current = connection;
    connecting$ = undefined;
    state = 'connected';
    const routing = connection.notifications$.subscribe((frame) => route(connection, frame));
    // A child that exited is gone for every session: the next initialize connects anew.
    connection.exit$.pipe(take(1)).subscribe(() => {
      routing.unsubscribe();
      if (current !== connection) return;
      current = undefined;
      if (!closed) state = 'down';
    });
  };

  return {
    connect: (): Observable<UpstreamConnection> =>
      defer(() => {
        if (current !== undefined) return of(viewOf(current));
        connecting$ ??= connect().pipe(
          take(1),
          tap({
            next: adopt,
            error: () => {
              connecting$ = undefined;
              state = 'down';
            },
          }),
          shareReplay({ bufferSize: 1, refCount: false }),
        );
        return connecting$.pipe(map(viewOf));
      }),
    /**
     * Stops the connection of `view` (a view that `connect` gave) now, unless it is gone already or
     * another view on it is open; the next connect connects anew. The shared bridge's upstream of
     * a failed or cancelled initialize that serves no other session (docs/shared.md#shared-lifecycle).
     */
    stopUnused: (view: UpstreamConnection): void => {
      const connection = current;
      // A view has the `exit$` of its connection (viewOf): it names the connection.
      if (connection === undefined || view.exit$ !== connection.exit$) return;
      if ([...views].some((open) => open.connection === connection)) return;
      current = undefined;
      state = 'down';
      connection.close();
    },
    /** The upstream's state for `GET /healthz` (docs/serve.md#serve-health). */
    state: (): UpstreamState => state,
    close: (): void => {
      closed = true;
      state = 'idle';
      current?.close();
      current = undefined;
    },
  };
}
