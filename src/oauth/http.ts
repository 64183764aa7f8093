/**
 * The HTTP requests of the sign-in go through the fetch of the HTTP upstream (its undici
 * dispatcher: `--ca-file` and the proxy apply, docs/http-upstream.md#http-client). This file bounds
 * them (time, body size, no redirects) and refuses any URL that is not a sign-in URL
 *, whoever asks: the metadata requests here and openid-client's requests.
 */
import { AddressRefusedError } from '../edges/http/lookup.js';
import { checkEndpoint } from './endpoints.js';

export type Fetch = typeof globalThis.fetch;

/** One request of the sign-in takes at most this long (metadata, registration, token). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** A metadata document or a token response is small; a larger body is refused. */
export const MAX_BODY_BYTES = 256 * 1024;

/** Why a request of the sign-in failed; never holds a URL or a body. */
export class SignInHttpError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'SignInHttpError';
  }
}

const TOO_LARGE = 'a response of the sign-in is too large';

/**
 * The response with its body bounded to {@link MAX_BODY_BYTES}: a larger `content-length` is
 * refused at once, and the body (as fetch decodes it, so a gzip body counts its decoded bytes)
 * errors as soon as it passes the limit. openid-client reads token, refresh and registration
 * responses with `response.json()`, which has no limit of its own.
 */
function limitBody(response: Response): Response {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) {
    void response.body?.cancel().catch(() => undefined);
    throw new SignInHttpError(TOO_LARGE);
  }
  // A Response cannot be made with a body for a null-body status (or outside 200–599).
  if (response.body === null || response.status < 200 || response.status > 599) return response;
  let size = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) controller.error(new SignInHttpError(TOO_LARGE));
      else controller.enqueue(chunk);
    },
  });
  const limited = new Response((response.body as ReadableStream<Uint8Array>).pipeThrough(counter), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(limited, 'url', { value: response.url });
  return limited;
}

/**
 * A fetch that refuses every URL {@link checkEndpoint} refuses, before any byte is sent, and
 * bounds the body of every response (see limitBody).
 */
export function guardedFetch(fetch: Fetch, mcpUrl: string): Fetch {
  return (input, init) => {
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const check = checkEndpoint(href, mcpUrl);
    if (!check.ok)
      return Promise.reject(new SignInHttpError(`a sign-in request was refused: ${check.reason}`));
    return fetch(input, init).then(limitBody);
  };
}

/**
 * The reason of a {@link SignInHttpError} anywhere in the cause chain of an error (openid-client
 * wraps it), or of an address the connection refused (undici wraps it).
 */
export function signInHttpReason(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof SignInHttpError) return current.reason;
    if (current instanceof AddressRefusedError) return `a sign-in request was refused: ${current.reason}`;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const bounded = (signal: AbortSignal): AbortSignal =>
  AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]);

/** Reads at most {@link MAX_BODY_BYTES} of a body. */
export async function readBody(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new SignInHttpError(TOO_LARGE);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export type JsonResult =
  | { readonly ok: true; readonly status: number; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly status?: number; readonly reason: string };

/** GET a JSON object; a non-200 status, a redirect or a body that is no JSON object is `ok: false`. */
export async function getJson(
  fetch: Fetch,
  url: string,
  signal: AbortSignal,
  mcpUrl: string,
): Promise<JsonResult> {
  let response: Response;
  try {
    response = await guardedFetch(fetch, mcpUrl)(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      redirect: 'manual',
      signal: bounded(signal),
    });
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return { ok: false, reason: signInHttpReason(error) ?? 'the request failed' };
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => undefined);
    return { ok: false, status: response.status, reason: `HTTP status ${response.status}` };
  }
  try {
    const parsed: unknown = JSON.parse(await readBody(response));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      return { ok: false, status: 200, reason: 'the document is not a JSON object' };
    }
    return { ok: true, status: 200, body: parsed as Record<string, unknown> };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    return {
      ok: false,
      status: 200,
      reason: signInHttpReason(error) ?? 'the document is not JSON',
    };
  }
}
