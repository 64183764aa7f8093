/**
 * One armed wait of the loopback receiver: what the start path and the callback do with a request
 * (docs/sign-in.md#sign-in-receiver, docs/security.md#security-rules items 5 and 6). No I/O here besides the response helpers:
 * receiver.ts owns the server, its limits and its lifecycle.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../ports/logger.js';
import { BridgeError } from '../../protocol/bridgeError.js';
import { sendPage, sendStartRedirect } from './pages.js';
import { sameSecret } from '../startUrl.js';

/** What the authorization server sent to the redirect URI (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export interface RedirectResult {
  readonly code?: string;
  readonly error?: string;
  readonly errorDescription?: string;
  readonly iss?: string;
  /** The full callback URL as received, for the OAuth library's own checks. */
  readonly callbackUrl: URL;
}

/**
 * `waiting`: before the redirect. `received`: the redirect came; the token exchange and the watch
 * of `watchStart` may still run (a second start GET then discards the sign-in). `stopped`: the
 * sign-in ended (start reused, aborted, closed, or the watch is over): the start path answers 404
 * and the callback 400.
 */
type Phase = 'waiting' | 'received' | 'stopped';

export interface Wait {
  readonly state: string;
  readonly authorizationUrl: string;
  /** The start token, when the bridge opens a browser (docs/sign-in.md#sign-in-receiver: not with `--no-browser`). */
  readonly token: string | undefined;
  phase: Phase;
  startServed: boolean;
  /** The connection that got the 303 passed the owner check of the receiver (Linux). */
  startChecked: boolean;
  /** A second start GET came after the redirect: the sign-in must not be used. */
  reused: boolean;
  /** Ends a running `watchStart`: with an error to refuse the sign-in, without to allow it. */
  watcher: ((error?: unknown) => void) | undefined;
  readonly resolve: (result: RedirectResult) => void;
  readonly reject: (error: unknown) => void;
}

const SCOPE = 'oauth';
const CALLBACK_PARAMS = ['state', 'code', 'error', 'error_description', 'iss'] as const;

/** Ends a wait that is not over yet; a wait that already received its redirect is only marked. */
export function stopWait(wait: Wait | undefined, error: unknown): void {
  if (wait === undefined || wait.phase === 'stopped') return;
  const waiting = wait.phase === 'waiting';
  wait.phase = 'stopped';
  if (waiting) wait.reject(error);
  wait.watcher?.(error);
}

const reusedError = (): BridgeError => new BridgeError('sign_in_hijacked');

/**
 * A new wait for `state`, before its redirect, with its result promise (marked as handled, so a
 * caller that stops listening cannot crash the process); `signal` stops it when aborted.
 */
export function armWait(
  input: { readonly state: string; readonly authorizationUrl: string; readonly signal?: AbortSignal },
  token: string | undefined,
): { readonly wait: Wait; readonly result: Promise<RedirectResult> } {
  let settle: Pick<Wait, 'resolve' | 'reject'> | undefined;
  const result = new Promise<RedirectResult>((resolve, reject) => (settle = { resolve, reject }));
  result.catch(() => undefined);
  const wait: Wait = {
    ...settle!,
    state: input.state,
    authorizationUrl: input.authorizationUrl,
    token,
    phase: 'waiting',
    startServed: false,
    startChecked: false,
    reused: false,
    watcher: undefined,
  };
  const { signal } = input;
  if (signal !== undefined) {
    if (signal.aborted) stopWait(wait, signal.reason);
    else signal.addEventListener('abort', () => stopWait(wait, signal.reason), { once: true });
  }
  return { wait, result };
}

/**
 * Resolves when the sign-in of `wait` may be used (SECURITY.md, "Shared hosts"); call it after the
 * token exchange. It rejects with `sign_in_hijacked` when the start URL got a second GET after the
 * redirect: another browser followed it first, so the code may be of another account. When the
 * 303 went to a connection whose owner the receiver could not check, it keeps the start path
 * served for `watchMs` more and rejects on a second GET in that time; when no start URL was
 * followed, or the receiver checked that its owner is the bridge's user, it resolves at once.
 */
export function watchStart(wait: Wait, watchMs: number, logger: Logger): Promise<void> {
  if (wait.reused) return Promise.reject(reusedError());
  if (wait.phase !== 'received') return Promise.reject(new Error('the sign-in has no redirect to watch'));
  if (!wait.startServed || wait.startChecked) {
    wait.phase = 'stopped';
    return Promise.resolve();
  }
  logger.log(
    SCOPE,
    'info',
    `the bridge uses the sign-in in ${watchMs / 1000} s, unless the start URL gets a second request (SECURITY.md)`,
  );
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => end(), watchMs);
    const end = (error?: unknown): void => {
      clearTimeout(timer);
      wait.watcher = undefined;
      wait.phase = 'stopped';
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error('the sign-in stopped'));
    };
    wait.watcher = end;
  });
}

/** GET /start/<token> (docs/sign-in.md#sign-in-receiver). */
export function onStart(
  wait: Wait | undefined,
  token: string,
  request: IncomingMessage,
  response: ServerResponse,
  logger: Logger,
  checked: boolean,
): void {
  if (request.method !== 'GET') return sendPage(response, 'method');
  // Compared even when no start URL is armed, so the answer time says nothing about the state.
  const known = sameSecret(token, wait?.token ?? '') && wait?.token !== undefined;
  if (wait === undefined || !known || wait.phase === 'stopped') {
    if (wait?.phase === 'waiting' && wait.token !== undefined) {
      logger.log(SCOPE, 'warn', 'the loopback receiver refused a start URL with a wrong token');
    }
    return sendPage(response, 'notFound');
  }
  if (wait.phase === 'received') {
    // The sign-in line was used and the browser came late: nobody followed the start URL.
    if (!wait.startServed) return sendPage(response, 'received');
    // Another browser followed the start URL first and its code came back: not ours to use.
    logger.log(
      SCOPE,
      'warn',
      'the start URL of the sign-in received a second request after the redirect, thus the bridge ' +
        'does not use the sign-in: someone else may have opened the start URL and signed in with ' +
        'their own account',
    );
    wait.reused = true;
    wait.watcher?.(reusedError());
    return sendPage(response, 'startAgainWarning');
  }
  if (!wait.startServed) {
    wait.startServed = true;
    wait.startChecked = checked;
    return sendStartRedirect(response, wait.authorizationUrl);
  }
  // A second GET before the redirect: someone else may hold the URL (docs/sign-in.md#sign-in-receiver, docs/security.md#security-6).
  sendPage(response, 'gone');
  logger.log(
    SCOPE,
    'warn',
    'the start URL of the sign-in received a second request before the redirect, thus the bridge stopped the sign-in',
  );
  stopWait(wait, new BridgeError('sign_in_start_reused'));
}

/** GET /callback?… (docs/sign-in.md#sign-in-receiver): only a matching `state` with a `code` or an `error` ends the wait. */
export function onCallback(
  wait: Wait | undefined,
  url: URL,
  request: IncomingMessage,
  response: ServerResponse,
  logger: Logger,
): void {
  if (request.method !== 'GET') return sendPage(response, 'method');
  if (wait === undefined || wait.phase !== 'waiting') {
    logger.log(SCOPE, 'warn', 'the loopback receiver refused a redirect: no sign-in waits for it');
    return sendPage(response, 'bad');
  }
  const params = url.searchParams;
  // A repeated parameter is ambiguous (which one would the OAuth library check?): refused.
  const single = CALLBACK_PARAMS.every((name) => params.getAll(name).length <= 1);
  const state = params.get('state');
  if (!single || state === null || !sameSecret(state, wait.state)) {
    logger.log(SCOPE, 'warn', 'the loopback receiver refused a redirect with a wrong or missing state');
    return sendPage(response, 'bad');
  }
  const code = params.get('code');
  const error = params.get('error');
  if (code === null && error === null) {
    logger.log(SCOPE, 'warn', 'the loopback receiver refused a redirect without a code and without an error');
    return sendPage(response, 'bad');
  }
  const description = params.get('error_description');
  const iss = params.get('iss');
  wait.phase = 'received';
  sendPage(response, 'received');
  logger.log(SCOPE, 'info', 'the loopback receiver received the redirect of the sign-in');
  wait.resolve({
    ...(code === null ? {} : { code }),
    ...(error === null ? {} : { error }),
    ...(description === null ? {} : { errorDescription: description }),
    ...(iss === null ? {} : { iss }),
    callbackUrl: url,
  });
}
