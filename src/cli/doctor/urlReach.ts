/**
 * `doctor <url>`, the first two checks (docs/doctor.md#doctor-checks): whether the URL answers (DNS,
 * TLS with `--ca-file`, the proxy of the environment: the sign-in's fetch, made like the
 * upstream's, src/edges/http/signInFetch.ts) and whether it speaks 2026-07-28 (`server/discover`
 * POSTed with the headers the bridge sends, src/edges/http/headers.ts). A 401 is an answer: the
 * sign-in checks follow, with the challenge's `resource_metadata`.
 */
import { connectFailure } from '../../edges/http/connectFailure.js';
import { chooseProxy } from '../../edges/http/dispatcher.js';
import { errorCode } from '../../edges/http/errorCode.js';
import { requestHeaders } from '../../edges/http/headers.js';
import { PROTOCOL_VERSION } from '../../codec/meta.js';
import { bearerChallenge } from '../../oauth/challenge.js';
import { readBody } from '../../oauth/http.js';
import type { Fetch } from '../../oauth/http.js';
import { serverOf } from '../status.js';
import { result, type CheckResult } from './checks.js';
import {
  discoverRequest,
  legacyInitialize,
  olderRevision,
  readDiscover,
  responseOf,
  spokenVersion,
} from './discoverAnswer.js';

export interface UrlReachInput {
  readonly fetch: Fetch;
  readonly url: string;
  /** `--header` and `--header-env`: sent, never printed. */
  readonly headers: readonly { readonly name: string; readonly value: string }[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly discoverTimeoutMs: number;
  readonly version: string;
}

export interface UrlReach {
  readonly checks: readonly CheckResult[];
  /** The server asked for a sign-in (401): the challenge's resource metadata URL, if it named one. */
  readonly signIn?: { readonly resourceMetadata?: string };
  /** The URL answered over HTTP at all (the sign-in checks need it). */
  readonly answered: boolean;
}

/** How the requests go: direct or through the proxy of a variable (never the proxy's URL). */
function route(url: string, env: UrlReachInput['env']): string {
  const choice = chooseProxy(new URL(url), env);
  return choice.kind === 'direct' ? 'direct' : `through the proxy of ${choice.variable}`;
}

/** The innermost cause that has a code (undici wraps the socket's error in "fetch failed"). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 8; depth += 1) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) break;
    current = cause;
  }
  return current;
}

const FIXES: ReadonlyArray<readonly [RegExp, string]> = [
  [/not trusted|TLS/, 'give the CA certificate of the server with --ca-file (or NODE_EXTRA_CA_CERTS)'],
  [/cannot be resolved/, 'check the host name of the URL, and the DNS or the proxy of the environment'],
  [/refused the tunnel/, 'check HTTPS_PROXY and its credentials, or NO_PROXY'],
  [/refused/, 'check that the server runs and listens on the port of the URL'],
];

/** The text of a POST that got no response, and a fix for it. */
function unreachable(error: unknown, where: string): CheckResult {
  const cause = rootCause(error);
  const detail =
    errorCode(cause) === 'ERR_SIGN_IN_ADDRESS_REFUSED'
      ? 'the address of the host is refused for this URL'
      : (connectFailure(cause, 'server/discover').detail ?? 'the connection failed').replace(
          /^server\/discover: /,
          '',
        );
  const fix =
    FIXES.find(([pattern]) => pattern.test(detail))?.[1] ?? 'check the URL, the network and the proxy';
  return result('reach', 'fail', `${where}: ${detail}`, fix);
}

/** The JSON-RPC frames of a response body: one JSON value, or the data of SSE events. */
function framesOf(contentType: string, body: string): unknown[] {
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
  };
  if (!contentType.includes('text/event-stream')) return [parse(body)];
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => parse(line.slice(5).trim()));
}

/** POSTs one request; the response of `id` (undefined when none), or the response without one. */
async function post(
  input: UrlReachInput,
  line: string,
  method: string,
  id: number,
  protocolVersion: string,
): Promise<{ status: number; headers: Headers; frame?: Record<string, unknown> }> {
  const response = await input.fetch(input.url, {
    method: 'POST',
    headers: requestHeaders({
      method,
      params: {},
      protocolVersion,
      staticHeaders: input.headers,
    }),
    body: line,
    redirect: 'manual',
    signal: AbortSignal.timeout(input.discoverTimeoutMs),
  });
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status, headers: response.headers };
  }
  const body = await readBody(response).catch(() => '');
  const frame = framesOf(response.headers.get('content-type') ?? '', body)
    .map((value) => responseOf(value, id))
    .find((value) => value !== undefined);
  return { status: 200, headers: response.headers, ...(frame === undefined ? {} : { frame }) };
}

export async function urlReach(input: UrlReachInput): Promise<UrlReach> {
  const where = `${serverOf(input.url)} (${route(input.url, input.env)})`;
  let first: Awaited<ReturnType<typeof post>>;
  try {
    first = await post(input, discoverRequest(1, input.version), 'server/discover', 1, PROTOCOL_VERSION);
  } catch (error) {
    const timedOut = (error as { name?: unknown } | null)?.name === 'TimeoutError';
    return {
      answered: false,
      checks: [
        timedOut
          ? result(
              'reach',
              'fail',
              `${where}: no answer in ${input.discoverTimeoutMs / 1000} s`,
              'check the URL and the network, or raise --discover-timeout',
            )
          : unreachable(error, where),
        result('revision', 'skip', 'the URL did not answer'),
      ],
    };
  }
  const reach = result('reach', 'ok', `${where} answers (HTTP ${first.status})`);
  if (first.status === 401) {
    const challenge = bearerChallenge(first.headers.get('www-authenticate') ?? undefined);
    return {
      answered: true,
      signIn:
        challenge.resourceMetadata === undefined ? {} : { resourceMetadata: challenge.resourceMetadata },
      checks: [
        reach,
        result(
          'revision',
          'skip',
          'the server asks for a sign-in first (HTTP 401); the sign-in checks follow',
        ),
      ],
    };
  }
  if (first.status === 200 && first.frame !== undefined) {
    const verdict = readDiscover(first.frame);
    if (verdict.kind === 'modern') return { answered: true, checks: [reach, verdict.check] };
    return { answered: true, checks: [reach, olderRevision(verdict.why, await legacyVersion(input))] };
  }
  const why =
    first.status === 200
      ? 'server/discover got no JSON-RPC response'
      : `server/discover got HTTP ${first.status}`;
  return { answered: true, checks: [reach, olderRevision(why, await legacyVersion(input))] };
}

/** The revision an `initialize` of 2025-11-25 gets, when the server refused `server/discover`. */
async function legacyVersion(input: UrlReachInput): Promise<string | undefined> {
  try {
    const reply = await post(input, legacyInitialize(2, input.version), 'initialize', 2, '2025-11-25');
    return spokenVersion(reply.frame);
  } catch {
    return undefined;
  }
}
