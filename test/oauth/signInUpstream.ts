/**
 * The upstream side of the in-process sign-in tests (test/oauth/signIn*.test.ts): a small "HTTP
 * upstream" that does what the bridge does on 401/403 (challenge, then one retry), and a receiver
 * seam that changes the redirect the flow gets. signInHarness.ts re-exports them.
 */
import { startReceiver } from '../../src/oauth/receiver.js';
import type { RedirectResult } from '../../src/oauth/receiver.js';
import type { SignInDeps } from '../../src/oauth/signInConfig.js';
import type { UpstreamAuth } from '../../src/ports/signIn.js';

export interface McpReply {
  readonly status: number;
  readonly wwwAuthenticate: string | undefined;
}

/** One POST of a JSON-RPC request to the MCP URL with the auth's current header. */
export async function post(
  fetch: typeof globalThis.fetch,
  url: string,
  auth: UpstreamAuth,
  body: Record<string, unknown> = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
): Promise<McpReply> {
  const header = auth.header();
  const proof = auth.proof?.();
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(header === undefined ? {} : { authorization: header }),
      ...(proof === undefined ? {} : { dpop: proof }),
    },
    body: JSON.stringify(body),
  });
  await response.body?.cancel();
  return { status: response.status, wwwAuthenticate: response.headers.get('www-authenticate') ?? undefined };
}

/** What the HTTP upstream does (src/edges/http/signInRetry.ts): on 401/403 challenge, then retry once. */
export async function request(
  fetch: typeof globalThis.fetch,
  url: string,
  auth: UpstreamAuth,
  body?: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<McpReply> {
  const authorization = auth.header();
  const first = await post(fetch, url, auth, body);
  if (first.status !== 401 && first.status !== 403) return first;
  await auth.challenge({
    status: first.status,
    wwwAuthenticate: first.wwwAuthenticate,
    method: 'tools/list',
    signal,
    authorization,
  });
  return post(fetch, url, auth, body);
}

/**
 * A startReceiver seam around the real receiver that changes the redirect the flow gets (what a
 * misbehaving authorization server would have sent to the redirect URI).
 */
export function rewritingReceiver(
  rewrite: (callbackUrl: URL) => URL,
): NonNullable<SignInDeps['startReceiver']> {
  return async (options) => {
    const receiver = await startReceiver(options);
    return {
      redirectUri: receiver.redirectUri,
      close: () => receiver.close(),
      expect(input) {
        const armed = receiver.expect(input);
        const result = armed.result.then((redirect): RedirectResult => {
          const callbackUrl = rewrite(new URL(redirect.callbackUrl.href));
          const get = (name: string): string | undefined => callbackUrl.searchParams.get(name) ?? undefined;
          const [code, error, iss] = [get('code'), get('error'), get('iss')];
          return {
            callbackUrl,
            ...(code === undefined ? {} : { code }),
            ...(error === undefined ? {} : { error }),
            ...(iss === undefined ? {} : { iss }),
          };
        });
        const { confirm } = armed;
        return armed.startUrl === undefined
          ? { result, confirm }
          : { startUrl: armed.startUrl, result, confirm };
      },
    };
  };
}
