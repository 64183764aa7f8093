/**
 * One armed wait of the loopback receiver: what the start path and the callback do with a request
 * (reference-behaviors.md §6.6, §10 items 5 and 6). No I/O here besides the response helpers:
 * receiver.ts owns the server, its limits and its lifecycle.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../bridge/log.js';
import { BridgeError } from '../../errors.js';
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
 * `waiting`: before the redirect. `received`: the redirect came, the token exchange may still run
 * (a second start GET then only warns). `stopped`: the sign-in ended (start reused, aborted or
 * closed): the start path answers 404 and the callback 400.
 */
type Phase = 'waiting' | 'received' | 'stopped';

export interface Wait {
  readonly state: string;
  readonly authorizationUrl: string;
  /** The start token, when the bridge opens a browser (§6.6: not with `--no-browser`). */
  readonly token: string | undefined;
  phase: Phase;
  startServed: boolean;
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
}

/** GET /start/<token> (§6.6). */
export function onStart(
  wait: Wait | undefined,
  token: string,
  request: IncomingMessage,
  response: ServerResponse,
  logger: Logger,
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
    logger.log(
      SCOPE,
      'warn',
      'the start URL of the sign-in received a second request after the redirect. If you did not ' +
        'open it a second time, the sign-in may belong to another account: run ' +
        '"mcp-bridge-vscode logout <url>" and sign in again.',
    );
    return sendPage(response, 'startAgainWarning');
  }
  if (!wait.startServed) {
    wait.startServed = true;
    return sendStartRedirect(response, wait.authorizationUrl);
  }
  // A second GET before the redirect: someone else may hold the URL (§6.6, §10 item 6).
  sendPage(response, 'gone');
  logger.log(
    SCOPE,
    'warn',
    'the start URL of the sign-in received a second request before the redirect, thus the bridge stopped the sign-in',
  );
  stopWait(wait, new BridgeError('sign_in_start_reused'));
}

/** GET /callback?… (§6.6): only a matching `state` with a `code` or an `error` ends the wait. */
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
