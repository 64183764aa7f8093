/**
 * One `initialize` attempt of a shared session on the upstream of its key
 * (docs/shared.md#shared-lifecycle): as the stdio bridge stops the upstream of a failed or
 * cancelled `initialize` and starts a new one for the next, an upstream that such an attempt
 * leaves without any other session on it is stopped at once, and the next `initialize` of the key
 * starts it again. While another session has a view of it (initialized, or initializing), it stays.
 *
 * Which attempt failed is read from the bridge's own handling (src/bridge/initialize.ts): it
 * applies a discover response before the response goes on, and closes the connection of a failed
 * attempt right there; a time limit, a cancellation or the session's end close it later. So a view
 * is accepted when its last discover response went through without its close; a view closed
 * before that (or abandoned before it came) is the upstream of a failed or cancelled attempt.
 */
import { Observable, take } from 'rxjs';
import type { ExchangeEvent, UpstreamConnection } from '../ports/upstream.js';

/** What the attempt needs of the key's upstream (sharedUpstream.ts). */
export interface AttemptUpstream {
  readonly connect: () => Observable<UpstreamConnection>;
  readonly stopUnused: (view: UpstreamConnection) => void;
}

/** The view of one attempt: `wrap` adds the session's own layers (the known discover result). */
function attemptView(
  upstream: AttemptUpstream,
  view: UpstreamConnection,
  wrap: (view: UpstreamConnection) => UpstreamConnection,
): UpstreamConnection {
  const inner = wrap(view);
  let accepted = false;
  let closed = false;
  /** The discovers of the attempt so far: only the last one decides (the retry of a -32022). */
  let discovers = 0;
  const discover = (events$: Observable<ExchangeEvent>): Observable<ExchangeEvent> =>
    new Observable<ExchangeEvent>((subscriber) => {
      const own = ++discovers;
      accepted = false;
      return events$.subscribe({
        next: (event) => {
          subscriber.next(event);
          // A retry subscribes again while its refusal is delivered: then the retry decides.
          if (event.type === 'response' && own === discovers) accepted = !closed;
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
  return {
    ...inner,
    request: (method, params, options) => {
      const events$ = inner.request(method, params, options);
      return method === 'server/discover' ? discover(events$) : events$;
    },
    close: () => {
      if (closed) return;
      closed = true;
      inner.close();
      if (!accepted) upstream.stopUnused(view);
    },
  };
}

/**
 * The `connect` of a session's bridge: a view of the key's upstream per `initialize`. A connect
 * given up before the upstream came (a cancelled `initialize` while the child starts) takes its
 * view once it comes and closes it as a failed attempt's.
 */
export function attemptConnect(
  upstream: AttemptUpstream,
  wrap: (view: UpstreamConnection) => UpstreamConnection,
): () => Observable<UpstreamConnection> {
  return () =>
    new Observable<UpstreamConnection>((subscriber) => {
      /** The connect gave its view or failed: set before the subscriber hears of it. */
      let settled = false;
      const connecting = upstream
        .connect()
        .pipe(take(1))
        .subscribe({
          next: (view) => {
            settled = true;
            subscriber.next(attemptView(upstream, view, wrap));
          },
          error: (error: unknown) => {
            settled = true;
            subscriber.error(error);
          },
          complete: () => {
            settled = true;
            subscriber.complete();
          },
        });
      return () => {
        if (settled) return;
        connecting.unsubscribe();
        // The start goes on for the key (sharedUpstream shares it); its view ends this attempt.
        upstream
          .connect()
          .pipe(take(1))
          .subscribe({ next: (view) => attemptView(upstream, view, wrap).close(), error: () => undefined });
      };
    });
}
