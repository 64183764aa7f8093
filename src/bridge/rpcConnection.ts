/**
 * The JSON-RPC client of a line-based upstream (stdio child): the connection as the bridge uses
 * it, and how it ends (the exit of the process, the end or failure of its output, close). The
 * exchanges in flight (ids, correlation, cancellation) are rpcExchanges.ts; where each upstream
 * line goes is rpcInbound.ts. Every upstream frame is dispatched synchronously in arrival order,
 * so an event the upstream wrote before a result reaches the client before that result
 * (docs/notifications.md#notifications-ordering).
 */
import {
  Observable,
  ReplaySubject,
  Subject,
  catchError,
  endWith,
  ignoreElements,
  map,
  merge,
  of,
  race,
  share,
  switchMap,
  take,
  tap,
  timer,
} from 'rxjs';
import { BridgeError } from '../protocol/bridgeError.js';
import type { NotificationFrame } from '../protocol/jsonrpc.js';
import { causeOf } from '../ports/causeOf.js';
import type { LineTransport } from '../ports/lineTransport.js';
import type { Logger } from '../ports/logger.js';
import { createExchanges, failAll, openExchange } from './rpcExchanges.js';
import { routeLine } from './rpcInbound.js';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';

/** Settings of createRpcConnection. */
export interface RpcConnectionConfig {
  /** How long to wait for the exit of a process that closed its stdout before failing with `closed`. */
  readonly exitAfterCloseMs: number;
}

/** A 2026-07-28 JSON-RPC connection over a LineTransport: requests, their responses and the notifications of the upstream. */
export function createRpcConnection(
  transport: LineTransport,
  logger: Logger,
  config: RpcConnectionConfig = { exitAfterCloseMs: 250 },
): UpstreamConnection {
  const exchanges = createExchanges(transport, logger);
  const notifications = new Subject<NotificationFrame>();
  // Replayed: a request made after the exit must still see it.
  const exit$ = transport.exit$.pipe(
    take(1),
    share({
      connector: () => new ReplaySubject(1),
      resetOnError: false,
      resetOnComplete: false,
      resetOnRefCountZero: false,
    }),
  );

  // Exit and the end of stdout both end the connection; a crashing child closes stdout just
  // before it exits, so a closed stdout waits briefly for the exit to report upstream_exited.
  const closed$ = race(
    exit$.pipe(map(() => new BridgeError('upstream_exited'))),
    timer(config.exitAfterCloseMs).pipe(map(() => new BridgeError('closed'))),
  );
  const lifecycle = merge(
    exit$.pipe(map(() => new BridgeError('upstream_exited'))),
    transport.inbound$.pipe(
      tap((inbound) => routeLine(exchanges, notifications, inbound)),
      ignoreElements(),
      endWith(undefined),
      catchError((error: unknown) => {
        // The log line keeps the original cause; the requests get transport_failed (docs/errors.md#error-transport_failed).
        logger.log('bridge', 'err', `reading the output of the upstream server failed (${causeOf(error)})`);
        return of(new BridgeError('transport_failed', { cause: error }));
      }),
      switchMap((failure) => (failure === undefined ? closed$ : of(failure))),
    ),
  ).subscribe((error) => failAll(exchanges, error));

  const connection: UpstreamConnection = {
    // One exchange per subscription (rpcExchanges.ts); unsubscribing before the response cancels it upstream.
    request: (method, params, options = {}) =>
      new Observable<ExchangeEvent>((subscriber) =>
        openExchange(exchanges, method, params, options, subscriber),
      ),
    notifications$: notifications.asObservable(),
    exit$,
    remote: false,
    close: () => {
      lifecycle.unsubscribe();
      failAll(exchanges, new BridgeError('closed'));
      notifications.complete();
      transport.close();
    },
  };
  return connection;
}
