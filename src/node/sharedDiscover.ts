/**
 * The known `server/discover` result of one shared upstream (docs/shared.md#shared-warm): a session
 * that joins a running upstream gets its `initialize` answered from it, with no new discover
 * upstream, while it is fresh. Only the upstream's raw result is kept: each session's bridge makes
 * its own `initialize` result from it (src/bridge/initialize.ts, its revision and its declared
 * capabilities), exactly as from an answer of the upstream.
 *
 * Fresh means: the listen streams of that upstream tell of its changes, and none told of one since
 * the result arrived. So the result becomes usable when a listen stream of the upstream is
 * acknowledged after it arrived (or one already was), and is dropped when
 * - any listen stream of the upstream reports a list change (tools, prompts, resources);
 * - the last acknowledged listen stream of the upstream ends (a change could then pass unseen);
 * - the upstream exits.
 * The `ttlMs` of the result is not read: the SDKs send 0 when the server's author gave no hint,
 * and the listen streams are how a 2026-07-28 server tells of changes.
 */
import type { Observable } from 'rxjs';
import { defer, finalize, of, take, tap } from 'rxjs';
import {
  LISTEN_ACKNOWLEDGED,
  PROMPTS_LIST_CHANGED,
  RESOURCES_LIST_CHANGED,
  TOOLS_LIST_CHANGED,
} from '../codec/listen.js';
import { classifyResult } from '../codec/results.js';
import type { ExchangeEvent, ExchangeOptions, UpstreamConnection } from '../ports/upstream.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { result as response } from '../protocol/jsonrpc.js';

const CHANGES: ReadonlySet<string> = new Set([
  TOOLS_LIST_CHANGED,
  PROMPTS_LIST_CHANGED,
  RESOURCES_LIST_CHANGED,
]);

/** The known result of one upstream, shared by the sessions on it. */
export interface KnownDiscover {
  /**
   * A session's view of the upstream whose `server/discover` may be answered from the known
   * result; `onKnown` is called when it is (a debug line of the session).
   */
  readonly wrap: (connection: UpstreamConnection, onKnown: () => void) => UpstreamConnection;
}

export function knownDiscover(): KnownDiscover {
  let result: JsonObject | undefined;
  /** A listen stream acknowledged since the result arrived has stayed open: changes are told. */
  let heard = false;
  /** Acknowledged listen streams of the upstream that are still open. */
  let open = 0;
  /** The exit of the upstream connection whose end is watched (one per connection). */
  let watched: UpstreamConnection['exit$'] | undefined;

  const forget = (): void => {
    result = undefined;
    heard = false;
  };

  const remember = (value: JsonObject, connection: UpstreamConnection): void => {
    result = structuredClone(value);
    heard = open > 0;
    const exit$ = connection.exit$;
    if (watched === exit$) return;
    watched = exit$;
    // Only the exit of the connection whose result is kept forgets it: an older connection of the
    // key (stopped after a failed initialize, docs/shared.md#shared-lifecycle) may exit late.
    exit$.pipe(take(1)).subscribe(() => {
      if (watched === exit$) forget();
    });
  };

  const discover = (
    connection: UpstreamConnection,
    onKnown: () => void,
    params: JsonObject,
    options?: ExchangeOptions,
  ) =>
    defer((): Observable<ExchangeEvent> => {
      if (result !== undefined && heard) {
        onKnown();
        // The id is the connection's business (src/ports/upstream.ts); initialize reads the result.
        return of({ type: 'response', frame: response(0, structuredClone(result)) });
      }
      return connection.request('server/discover', params, options).pipe(
        tap((event) => {
          if (event.type !== 'response' || !('result' in event.frame)) return;
          const classified = classifyResult('server/discover', event.frame.result);
          if (classified.kind === 'complete') remember(classified.result, connection);
        }),
      );
    });

  /** Counts the stream while it is acknowledged; a list change it reports drops the result. */
  const listen = (events$: Observable<ExchangeEvent>): Observable<ExchangeEvent> =>
    defer(() => {
      let acknowledged = false;
      return events$.pipe(
        tap((event) => {
          if (event.type !== 'notification') return;
          const method = event.frame.method;
          if (CHANGES.has(method)) forget();
          else if (method === LISTEN_ACKNOWLEDGED && !acknowledged) {
            acknowledged = true;
            open += 1;
            if (result !== undefined) heard = true;
          }
        }),
        finalize(() => {
          if (!acknowledged) return;
          open -= 1;
          if (open === 0) forget();
        }),
      );
    });

  return {
    wrap: (connection, onKnown) => ({
      ...connection,
      request: (method, params, options) => {
        if (method === 'server/discover') return discover(connection, onKnown, params, options);
        const events$ = connection.request(method, params, options);
        return method === 'subscriptions/listen' ? listen(events$) : events$;
      },
    }),
  };
}
