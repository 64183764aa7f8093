/**
 * The sign-in hook of the HTTP upstream: a POST refused
 * with 401 or 403 hands the challenge to the {@link UpstreamAuth}, which signs in, refreshes or
 * steps up, then the same request goes once more with a new id (docs/sign-in.md#sign-in-trigger,
 * `max_step_up_attempts` = 1); a second 401/403 fails it with `access_refused`. Without an auth, or for a listen stream, the refusal passes on:
 * a listen stream waits for the next sign-in of another request instead (docs/http-upstream.md#http-listen-stream).
 */
import { catchError, defer, from, mergeMap, of, throwError } from 'rxjs';
import type { Observable } from 'rxjs';
import type { ConsentPort, UpstreamAuth } from '../../ports/signIn.js';
import type { TraceContext } from '../../ports/telemetry.js';
import { BridgeError, isBridgeError } from '../../protocol/bridgeError.js';
import type { HttpResponse } from './response.js';

/** What {@link withSignIn} needs for one exchange. */
export interface SignInRetryContext {
  readonly auth: UpstreamAuth | undefined;
  readonly method: string;
  /**
   * Aborts when the exchange is unsubscribed (a client cancel, a time limit, the end of input).
   * Read only when a challenge needs it, so that it may be made then (canceller.ts).
   */
  readonly signal: AbortSignal;
  /** The client connection of the exchange (ExchangeOptions.consent): the one a sign-in asks. */
  readonly consent?: ConsentPort | undefined;
  /** The trace context of the request (traceContextOf), read only when a challenge needs it. */
  readonly trace?: TraceContext | undefined;
}

const ignore = (): void => undefined;

const first = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(', ') : value;

/** The Authorization header of the next POST, when a sign-in gave one. */
export function authorizationHeader(auth: UpstreamAuth | undefined): Record<string, string> {
  const value = auth?.header();
  if (value === undefined) return {};
  // docs/sign-in.md#sign-in-dpop: a DPoP-bound token goes with a fresh proof on every request.
  const proof = auth?.proof?.();
  return proof === undefined ? { Authorization: value } : { Authorization: value, DPoP: proof };
}

/**
 * Runs `post` (one POST with a new id per subscription) with the current Authorization header;
 * on a 401/403 closes that body, waits for `auth.challenge`, then posts once more. A challenge that fails fails this exchange alone with
 * its BridgeError.
 */
export function withSignIn(
  post: (authorization: Record<string, string>) => Observable<HttpResponse>,
  ctx: SignInRetryContext,
): Observable<HttpResponse> {
  const { auth, method } = ctx;
  // The header each POST carried: the challenge learns which token was refused, so that a 401
  // that arrives after another request's sign-in costs no second sign-in (src/ports/signIn.ts).
  let sent: Record<string, string> = {};
  const postOnce = (): Observable<HttpResponse> =>
    defer(() => {
      sent = authorizationHeader(auth);
      return post(sent);
    });
  // docs/sign-in.md#sign-in-dpop: one more POST per request for a new DPoP nonce of the resource,
  // apart from the one after a sign-in; a nonce challenge after it ends the request.
  let nonceRetried = false;
  const nonceStep = (response: HttpResponse): Observable<HttpResponse> => {
    if (response.statusCode !== 401 || auth?.takeNonce === undefined) return of(response);
    const taken = auth.takeNonce({
      wwwAuthenticate: first(response.headers['www-authenticate']),
      dpopNonce: first(response.headers['dpop-nonce']),
    });
    if (taken === 'none') return of(response);
    response.body.on('error', ignore);
    response.body.destroy();
    if (taken === 'new' && !nonceRetried) {
      nonceRetried = true;
      return postOnce().pipe(mergeMap(nonceStep));
    }
    return throwError(
      () =>
        new BridgeError('access_refused', {
          detail: `${method}: the upstream server refused the DPoP nonce of the retried request`,
          httpStatus: 401,
        }),
    );
  };
  const postNow = (): Observable<HttpResponse> => postOnce().pipe(mergeMap(nonceStep));
  // docs/http-upstream.md#http-listen-stream: a listen stream never starts a sign-in.
  if (auth === undefined || method === 'subscriptions/listen') return postNow();
  return postNow().pipe(
    mergeMap((response) => {
      const status = response.statusCode;
      if (status !== 401 && status !== 403) return of(response);
      // The refusal's body is never read: it may be large, and nothing in it is trusted.
      response.body.on('error', ignore);
      response.body.destroy();
      const wwwAuthenticate = first(response.headers['www-authenticate']);
      const authorization = sent['Authorization'];
      const challenge$ = defer(() =>
        from(
          auth.challenge({
            status,
            wwwAuthenticate,
            method,
            signal: ctx.signal,
            authorization,
            ...(ctx.consent === undefined ? {} : { consent: ctx.consent }),
            trace: ctx.trace,
          }),
        ),
      ).pipe(
        // A challenge gives BridgeErrors of docs/errors.md#errors-sign-in; anything else is a failure of the bridge.
        catchError((error: unknown) =>
          throwError(() =>
            isBridgeError(error)
              ? error
              : new BridgeError('internal', { detail: `${method}: the sign-in failed` }),
          ),
        ),
      );
      return challenge$.pipe(
        mergeMap(() => postNow()),
        mergeMap((retried) => {
          const again = retried.statusCode;
          if (again !== 401 && again !== 403) return of(retried);
          // One sign-in or step-up per request (docs/sign-in.md#sign-in-trigger): a second refusal ends the request.
          retried.body.on('error', ignore);
          retried.body.destroy();
          return throwError(
            () =>
              new BridgeError('access_refused', {
                detail: `${method}: the upstream server refused the access after the sign-in`,
                httpStatus: again,
              }),
          );
        }),
      );
    }),
  );
}
