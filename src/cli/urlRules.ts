/**
 * The rules for the URL of an upstream server (docs/http-upstream.md#http-url-rules), checked before the
 * bridge starts. Hints never echo the URL: it may hold a key in its query.
 */
import { checkSignInEndpoint } from '../oauth/authorizationUrl.js';
import { UsageError } from './usageError.js';

const LOOPBACK_HINT = 'localhost, *.localhost, 127.0.0.0/8 or [::1]';

/**
 * True for a loopback host name as `URL.hostname` gives it (lower case, IPv4 normalized, IPv6 in
 * brackets): `localhost`, names ending in `.localhost`, `127.0.0.0/8` and `[::1]`.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    /^127(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(host) ||
    host === '[::1]' ||
    host === '::1'
  );
}

/** Throws a UsageError when `text` is not a usable upstream URL. */
export function checkUpstreamUrl(text: string): void {
  const invalid = (hint: string): UsageError =>
    new UsageError(`the URL of the upstream server is not valid: ${hint}`);
  if (!/^[\x21-\x7e]+$/.test(text)) throw invalid('it may hold only visible ASCII characters, and no spaces');
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  if (scheme !== 'https' && scheme !== 'http') {
    throw invalid(`give an https URL (http only for a loopback host: ${LOOPBACK_HINT})`);
  }
  // The authority as written; URL() would skip extra slashes (`https:///host`) and drop an empty `@`.
  const authority = text.slice(scheme.length + 3).split(/[/?#\\]/)[0] ?? '';
  if (authority.includes('@')) {
    throw invalid('it must not hold a user name or password; give credentials with --header-env');
  }
  if (text.includes('#')) throw invalid('it must not have a fragment ("#")');
  if (authority === '' || authority.startsWith(':')) throw invalid('it has no host');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('it cannot be read as a URL');
  }
  if (url.hostname === '') throw invalid('it has no host');
  if (url.port === '0') throw invalid('port 0 is not a valid port');
  if (scheme === 'http' && !isLoopbackHost(url.hostname)) {
    throw invalid(`http is allowed only for a loopback host (${LOOPBACK_HINT}); give an https URL`);
  }
}

/** The URL as written, or the first hint that refuses it; shared by the sign-in URL options. */
function readUrl(text: string): { url: URL } | { hint: string } {
  if (!/^[\x21-\x7e]+$/.test(text))
    return { hint: 'it may hold only visible ASCII characters, and no spaces' };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
  const authority = scheme === undefined ? '' : (text.slice(scheme.length + 3).split(/[/?#\\]/)[0] ?? '');
  if (authority.includes('@')) return { hint: 'it must not hold a user name or password' };
  if (text.includes('#')) return { hint: 'it must not have a fragment ("#")' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { hint: 'it cannot be read as a URL' };
  }
  if (authority === '' || authority.startsWith(':') || url.hostname === '') return { hint: 'it has no host' };
  if (url.port === '0') return { hint: 'port 0 is not a valid port' };
  return { url };
}

/**
 * The hint that refuses a `--client-issuer`, or undefined when it is usable: the rule of every
 * sign-in endpoint (`checkSignInEndpoint`: `https`, or `http` on a loopback host only with a
 * loopback MCP URL as docs/sign-in.md#sign-in-urls allows, a deviation from docs/cli.md#cli-forms,
 * which asks for https only; a host; no user information or fragment), and no query.
 */
export function clientIssuerHint(text: string, mcpUrl: string): string | undefined {
  const hint = checkSignInEndpoint(text, mcpUrl);
  if (hint !== undefined) return hint;
  if (text.includes('?')) return 'it has a query';
  return undefined;
}

/**
 * The hint that refuses a `--client-metadata-url`, or undefined when it is usable: an `https` URL
 * with a path, no user information and no fragment (docs/sign-in.md#sign-in-registration). The client ID
 * metadata document stays https only, also for loopback hosts.
 */
export function clientMetadataUrlHint(text: string): string | undefined {
  const read = readUrl(text);
  if ('hint' in read) return read.hint;
  const { url } = read;
  if (url.protocol !== 'https:') return 'give an https URL';
  if (url.pathname === '/' || url.pathname === '') return 'it must have a path, such as /client.json';
  return undefined;
}
