/**
 * The checks of URLs the sign-in gets from an authorization server, which is not trusted
 * (docs/security.md#security-rules): the authorization URL before the bridge writes or opens it (docs/sign-in.md#sign-in-authorization-url,
 * docs/security.md#security-1) and every other sign-in endpoint before the bridge sends anything to it. Pure: no
 * I/O, no Node modules.
 *
 * One deviation from the reference (RFC 8252 spirit): `http` is allowed when the
 * host is a loopback host (local test servers); `https` everywhere else. The reference refuses
 * loopback `http` too.
 */

export type UrlCheck = { ok: true } | { ok: false; log: string };

/** docs/sign-in.md#sign-in-authorization-url: 8 KiB. */
const MAX_LENGTH = 8 * 1024;
/** Visible ASCII, 0x21–0x7E: no space, no control character, nothing a terminal could render otherwise. */
const VISIBLE_ASCII = /^[\x21-\x7e]*$/;
/** docs/sign-in.md#sign-in-authorization-url: `"<>\^`{|}`: characters a URL must escape; `|` and backtick are also shell syntax. */
const UNSAFE = /["<>\\^`{|}]/;
/** A `%` not followed by two hexadecimal digits. */
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
/** The scheme and the authority as written (the WHATWG parser would repair `https:host`). */
const START = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/;
const DOTTED_LOOPBACK = /^127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const LOCALHOST_NAME = /^(?:[a-z0-9_-]+\.)*localhost$/;

/**
 * True for a loopback host as `URL.hostname` writes it: `localhost`, names ending in
 * `.localhost`, `127.0.0.0/8` in dotted decimal, and `[::1]` (also without brackets).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return LOCALHOST_NAME.test(host) || DOTTED_LOOPBACK.test(host) || host === '[::1]' || host === '::1';
}

/** True when the MCP URL's own host is a loopback host: only then may a sign-in URL be loopback `http`. */
function mcpIsLoopback(mcpUrl: string): boolean {
  try {
    return isLoopbackHost(new URL(mcpUrl).hostname);
  } catch {
    return false;
  }
}

type Parsed = { ok: true; url: URL } | { ok: false; error: string };

/**
 * The shared rules: visible ASCII, `https` (or `http` to a loopback host written as the parser
 * writes it, so that `http://127.1` or `http://0x7f.1` cannot pass as loopback), a host, no user
 * information (not even an empty `@`), no fragment (not even an empty `#`).
 */
function parse(text: string, loopbackHttp: boolean): Parsed {
  if (!VISIBLE_ASCII.test(text)) return { ok: false, error: 'it holds a character outside visible ASCII' };
  const start = START.exec(text);
  if (start === null) return { ok: false, error: 'it is not an https URL' };
  const scheme = (start[1] ?? '').toLowerCase();
  const authority = start[2] ?? '';
  if (scheme !== 'https' && scheme !== 'http') return { ok: false, error: 'it is not an https URL' };
  if (authority.includes('@')) return { ok: false, error: 'it holds user information' };
  if (text.includes('#')) return { ok: false, error: 'it has a fragment' };
  const rawHost = authority.startsWith('[')
    ? authority.slice(0, authority.indexOf(']') + 1)
    : authority.replace(/:[^:]*$/, '');
  const rawPort = authority.slice(rawHost.length).replace(/^:/, '');
  if (rawHost === '') return { ok: false, error: 'it has no host' };
  if (/^\d+$/.test(rawPort) && Number(rawPort) > 65535)
    return { ok: false, error: 'its port is above 65535' };
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, error: 'it cannot be read as a URL' };
  }
  if (url.hostname === '') return { ok: false, error: 'it has no host' };
  if (scheme === 'http' && !(rawHost.toLowerCase() === url.hostname && isLoopbackHost(url.hostname))) {
    return { ok: false, error: 'it is not an https URL, and http is allowed only for a loopback host' };
  }
  if (scheme === 'http' && !loopbackHttp) {
    return { ok: false, error: 'it is http on a loopback host, which only a loopback MCP URL allows' };
  }
  return { ok: true, url };
}

/**
 * Checks a sign-in endpoint (resource and authorization server metadata, token and registration
 * endpoints, an issuer, `--client-issuer`): `https`, or `http` to a loopback
 * host; no user information; no fragment. Returns why it is refused (never the URL itself), or
 * undefined when the bridge may use it.
 */
export function checkSignInEndpoint(url: string, mcpUrl: string): string | undefined {
  const parsed = parse(url, mcpIsLoopback(mcpUrl));
  return parsed.ok ? undefined : parsed.error;
}

const invalid = (error: string): UrlCheck => ({
  ok: false,
  log: `the authorization URL is not valid (${error}), thus the bridge does not open it`,
});

/**
 * Checks the authorization URL before the bridge writes it on the sign-in line or opens it
 * (docs/sign-in.md#sign-in-authorization-url). On failure `log` is the exact first log line of docs/sign-in.md#sign-in-authorization-url (it never holds the URL); the
 * caller then logs the cause message and fails with `sign_in_invalid_url`.
 */
export function checkAuthorizationUrl(url: string, redirectUri: string, mcpUrl: string): UrlCheck {
  // The length first, so that no rule below runs over a huge string.
  if (url.length > MAX_LENGTH) return invalid('it is longer than 8 KiB');
  if (!VISIBLE_ASCII.test(url)) return invalid('it holds a character outside visible ASCII');
  if (UNSAFE.test(url)) return invalid('it holds one of the characters " < > \\ ^ ` { | }');
  if (BAD_PERCENT.test(url)) return invalid('it holds a "%" that is not followed by two hexadecimal digits');
  const parsed = parse(url, mcpIsLoopback(mcpUrl));
  if (!parsed.ok) return invalid(parsed.error);
  const params = parsed.url.searchParams;
  const states = params.getAll('state');
  if (states.length > 1) return invalid('it holds more than one state');
  if (states.length === 0 || states[0] === '') {
    return { ok: false, log: 'the authorization URL has no state, thus the bridge does not open it' };
  }
  const redirects = params.getAll('redirect_uri');
  if (redirects.length !== 1 || redirects[0] !== redirectUri) {
    return {
      ok: false,
      log: 'the redirect URI of the authorization URL is not the redirect URI of the receiver',
    };
  }
  return { ok: true };
}
