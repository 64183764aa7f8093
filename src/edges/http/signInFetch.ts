/**
 * The fetch of the sign-in's requests (metadata, registration, token): undici's fetch through a
 * dispatcher made like the upstream's (dispatcher.ts), so that `--ca-file` and the proxy of the
 * environment apply to them too (docs/http-upstream.md#http-client). The proxy choice
 * depends on the target host, so each origin gets its own dispatcher.
 *
 * The origins are named by the upstream and its authorization server (resource metadata,
 * `authorization_servers`, client metadata documents), which docs/security.md#security-rules does not trust: the
 * dispatchers are kept in a small LRU (MAX_SIGN_IN_DISPATCHERS), and the one it evicts is closed,
 * so a hostile server cannot make the bridge keep sockets open to any number of origins. Their
 * direct connections refuse a name that resolves to a loopback, link-local or private address
 * unless the MCP server is on one (lookup.ts); through a proxy, the proxy resolves the names.
 */
import { fetch as undiciFetch } from 'undici';
import type { Dispatcher } from 'undici';
import { createDispatcher } from './dispatcher.js';
import type { DispatcherConfig } from './dispatcher.js';
import { guardedLookup } from './lookup.js';
import type { Resolve } from './lookup.js';

/**
 * A sign-in talks to few origins (the MCP server, its resource metadata, the authorization
 * server, a client metadata document); eight keep them all with room for a migration.
 */
export const MAX_SIGN_IN_DISPATCHERS = 8;

/** What {@link createSignInFetch} needs: the upstream's trust and proxy settings, and its URL. */
export interface SignInFetchConfig extends Omit<DispatcherConfig, 'lookup'> {
  /** The MCP URL: its host decides which addresses the sign-in may reach (hostClass.ts). */
  readonly mcpUrl: string;
  /** The system resolver by default; a seam for tests. */
  readonly resolve?: Resolve;
}

export interface SignInFetch {
  readonly fetch: typeof globalThis.fetch;
  /** Closes the dispatchers (at the end of the process). */
  close(): void;
}

const urlOf = (input: Parameters<typeof globalThis.fetch>[0]): URL =>
  new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);

export function createSignInFetch(
  settings: SignInFetchConfig,
  maxDispatchers: number = MAX_SIGN_IN_DISPATCHERS,
): SignInFetch {
  const { mcpUrl, resolve, ...rest } = settings;
  const config: DispatcherConfig = { ...rest, lookup: guardedLookup(new URL(mcpUrl).hostname, resolve) };
  // A Map iterates in insertion order: a hit is moved to the end, so the first key is the least
  // recently used one.
  const dispatchers = new Map<string, Dispatcher>();
  const dispatcherFor = (url: URL): Dispatcher => {
    const known = dispatchers.get(url.origin);
    if (known !== undefined) {
      dispatchers.delete(url.origin);
      dispatchers.set(url.origin, known);
      return known;
    }
    const made = createDispatcher(url, config);
    // The reason names the variable, never its value or the URL.
    if (!made.ok) throw new TypeError(`cannot make the HTTP client for the sign-in: ${made.reason}`);
    dispatchers.set(url.origin, made.dispatcher);
    for (const [origin, old] of dispatchers) {
      if (dispatchers.size <= maxDispatchers) break;
      dispatchers.delete(origin);
      // close(), not destroy(): a request still under way on it ends normally, then its sockets close.
      void old.close().catch(() => undefined);
    }
    return made.dispatcher;
  };
  const fetch = ((input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit): Promise<Response> => {
    let dispatcher: Dispatcher;
    try {
      dispatcher = dispatcherFor(urlOf(input));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new TypeError('the sign-in URL is not valid'));
    }
    // undici's Request and Response are those of the global fetch in shape; openid-client checks
    // them by their tag, not by their class.
    const options = { ...init, dispatcher } as Parameters<typeof undiciFetch>[1];
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], options);
  }) as typeof globalThis.fetch;
  return {
    fetch,
    close() {
      for (const dispatcher of dispatchers.values()) void dispatcher.destroy().catch(() => undefined);
      dispatchers.clear();
    },
  };
}
