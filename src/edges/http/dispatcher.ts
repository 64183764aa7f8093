/**
 * The undici dispatcher of an HTTP upstream: trust (system CAs plus `--ca-file`) and the proxy
 * from the environment (docs/http-upstream.md#http-client). Loopback hosts never go through a proxy; a
 * proxy is reached with a CONNECT tunnel, and its credentials come only from the proxy URL. A
 * direct connection to `localhost` or a `*.localhost` name goes to a loopback address without any
 * DNS query (RFC 6761 §6.3, lookup.ts).
 */
import { errorName } from '../../ports/causeOf.js';
import { readFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import tls from 'node:tls';
import { Agent, ProxyAgent } from 'undici';
import type { Dispatcher } from 'undici';
import { bareHost as bare, isLocalhostName } from './hostClass.js';
import { localhostLookup } from './lookup.js';
import type { Lookup } from './lookup.js';

/** The environment variables the dispatcher reads. */
export type ProxyEnv = Readonly<Record<string, string | undefined>>;

/**
 * No undici default may end a request: a long tool call or a quiet listen stream would be
 * cancelled by the client itself (docs/requests.md#requests-ids trap 4). The bridge applies its own
 * per-method limits.
 */
export const NO_TIMEOUTS = Object.freeze({ bodyTimeout: 0, headersTimeout: 0 });

/** Where the requests of one upstream URL go. */
export type ProxyChoice =
  | { readonly kind: 'direct' }
  | { readonly kind: 'proxy'; readonly variable: string; readonly proxy: URL }
  /** The variable names a proxy that cannot be used; `reason` never holds the value. */
  | { readonly kind: 'invalid'; readonly variable: string; readonly reason: string };

const LOOPBACK6 = new BlockList();
LOOPBACK6.addAddress('::1', 'ipv6');

/** `localhost`, names ending in `.localhost`, `127.0.0.0/8` and `::1` (docs/http-upstream.md#http-url-rules). */
export function isLoopbackHost(hostname: string): boolean {
  if (isLocalhostName(hostname)) return true;
  const host = bare(hostname);
  if (isIP(host) === 4) return host.startsWith('127.');
  return isIP(host) === 6 && LOOPBACK6.check(host, 'ipv6');
}

const defaultPort = (url: URL): string => url.port || (url.protocol === 'https:' ? '443' : '80');

/** One entry of NO_PROXY: `*`, a host or domain (`example.com`, `.example.com`, `*.example.com`), an IP or CIDR, each with an optional `:port`. */
function entryMatches(entry: string, host: string, port: string): boolean {
  if (entry === '*') return true;
  let name = entry;
  let entryPort: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(name);
  if (bracketed !== null) {
    name = bracketed[1] ?? '';
    entryPort = bracketed[2];
  } else if (name.split(':').length === 2) {
    const [head, tail] = name.split(':');
    name = head ?? '';
    entryPort = tail;
  }
  if (entryPort !== undefined && entryPort !== port) return false;
  const slash = name.indexOf('/');
  if (slash !== -1) {
    const address = name.slice(0, slash);
    const prefix = Number(name.slice(slash + 1));
    const family = isIP(address);
    if (family === 0 || isIP(host) !== family || !Number.isInteger(prefix)) return false;
    const list = new BlockList();
    try {
      list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } catch {
      return false;
    }
    return list.check(host, family === 4 ? 'ipv4' : 'ipv6');
  }
  name = name.replace(/^\*?\./, '');
  if (name === '') return false;
  return host === name || (isIP(host) === 0 && host.endsWith(`.${name}`));
}

/** True when NO_PROXY (comma or space separated) excludes the URL from the proxy. */
export function noProxyMatches(noProxy: string, url: URL): boolean {
  const host = bare(url.hostname);
  const port = defaultPort(url);
  return noProxy
    .split(/[\s,]+/)
    .map((entry) => bare(entry.trim()))
    .some((entry) => entry !== '' && entryMatches(entry, host, port));
}

const first = (env: ProxyEnv, names: readonly string[]): { name: string; value: string } | undefined => {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
};

/**
 * The proxy of a target URL: `https_proxy`/`HTTPS_PROXY` for https, then `all_proxy`/`ALL_PROXY`
 * (lowercase first, as curl does), unless the host is a loopback host or `no_proxy`/`NO_PROXY`
 * excludes it. Only `http:` and `https:` proxies work (a CONNECT tunnel through either).
 */
export function chooseProxy(target: URL, env: ProxyEnv): ProxyChoice {
  if (isLoopbackHost(target.hostname)) return { kind: 'direct' };
  const names =
    target.protocol === 'https:'
      ? ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']
      : ['all_proxy', 'ALL_PROXY'];
  const chosen = first(env, names);
  if (chosen === undefined) return { kind: 'direct' };
  const noProxy = first(env, ['no_proxy', 'NO_PROXY']);
  if (noProxy !== undefined && noProxyMatches(noProxy.value, target)) return { kind: 'direct' };
  let proxy: URL;
  try {
    proxy = new URL(chosen.value);
  } catch {
    return { kind: 'invalid', variable: chosen.name, reason: 'the value is not a URL' };
  }
  if (proxy.protocol !== 'http:' && proxy.protocol !== 'https:') {
    const scheme = /^[a-z][a-z0-9+.-]*:$/.test(proxy.protocol) ? ` ${proxy.protocol.slice(0, -1)}` : '';
    return {
      kind: 'invalid',
      variable: chosen.name,
      reason: `the proxy URL has the scheme${scheme}; only http and https work`,
    };
  }
  return { kind: 'proxy', variable: chosen.name, proxy };
}

/**
 * The certificates of NODE_EXTRA_CA_CERTS, which Node adds to its default store at start; an
 * unreadable file adds none (Node itself only warns about it).
 */
function extraCas(env: ProxyEnv): string[] {
  const file = env['NODE_EXTRA_CA_CERTS'];
  if (file === undefined || file === '') return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}

/**
 * The default CAs of Node plus the extra PEM: an explicit `ca` replaces the defaults in Node, so
 * they are listed too. Without `tls.getCACertificates` (Node 20) the defaults are the bundled CAs
 * and the certificates of NODE_EXTRA_CA_CERTS.
 */
function trustedCas(caPem: string, env: ProxyEnv): string[] {
  const getCa = (tls as { getCACertificates?: (type?: string) => string[] }).getCACertificates;
  const defaults =
    typeof getCa === 'function' ? getCa('default') : [...tls.rootCertificates, ...extraCas(env)];
  return [...defaults, caPem];
}

/** What {@link createDispatcher} needs. */
export interface DispatcherConfig {
  /** Extra trusted CA certificates (PEM), added to the default ones. */
  readonly caPem?: string;
  /** The proxy variables, and NODE_EXTRA_CA_CERTS for the default CAs. */
  readonly env: ProxyEnv;
  /**
   * The name lookup of a direct connection (lookup.ts). Default: localhost names are loopback
   * without DNS (RFC 6761 §6.3), other names go to the system resolver. Through a proxy, the
   * proxy resolves the names and this lookup is not used.
   */
  readonly lookup?: Lookup;
}

/** The dispatcher, or why none can be made (the reason never holds a URL or a credential). */
export type DispatcherResult =
  | { readonly ok: true; readonly dispatcher: Dispatcher; readonly proxied: boolean }
  | { readonly ok: false; readonly reason: string };

/**
 * Makes the dispatcher for one upstream URL: a plain undici Agent, or a ProxyAgent that tunnels
 * with CONNECT. Credentials of the proxy URL become `Proxy-Authorization: Basic …` of the CONNECT
 * request (a user name alone is enough); they never reach the upstream server.
 */
export function createDispatcher(target: URL, config: DispatcherConfig): DispatcherResult {
  const choice = chooseProxy(target, config.env);
  if (choice.kind === 'invalid') return { ok: false, reason: `${choice.variable}: ${choice.reason}` };
  const tlsOptions = config.caPem === undefined ? {} : { ca: trustedCas(config.caPem, config.env) };
  try {
    if (choice.kind === 'direct') {
      const connect = { ...tlsOptions, lookup: config.lookup ?? localhostLookup() };
      return { ok: true, proxied: false, dispatcher: new Agent({ ...NO_TIMEOUTS, connect }) };
    }
    const { proxy } = choice;
    const user = decodeURIComponent(proxy.username);
    const password = decodeURIComponent(proxy.password);
    const bareProxy = new URL(proxy.href);
    bareProxy.username = '';
    bareProxy.password = '';
    const token =
      user === '' && password === ''
        ? {}
        : { token: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
    const dispatcher = new ProxyAgent({
      uri: bareProxy.href,
      ...token,
      ...NO_TIMEOUTS,
      requestTls: tlsOptions,
      proxyTls: tlsOptions,
    });
    return { ok: true, proxied: true, dispatcher };
  } catch (error) {
    return {
      ok: false,
      reason: `${choice.kind === 'proxy' ? choice.variable : 'agent'}: undici refused the settings (${errorName(error)})`,
    };
  }
}
