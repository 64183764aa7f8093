/**
 * The URL rule of URL elicitations (docs/input-rounds.md#input-checks): which URLs the bridge shows to
 * the user. Pure: no rxjs, no node:*.
 */

/** Whitespace (ASCII and Unicode) and invisible or direction-changing format characters. */
const SPACE_OR_INVISIBLE = /[\s\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/u;
/** The scheme and the `//` that must follow it; anything else is refused before parsing. */
const HTTP_START = /^(https?):\/\/([^/?#]*)/i;
const DOTTED_LOOPBACK =
  /^127\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){2}$/;
/** `[::ffff:127.x.x.x]` after WHATWG serialization: `[::ffff:7fxx:xxxx]`. */
const MAPPED_LOOPBACK = /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/;

/**
 * True when the bridge may show this URL to the user in a URL elicitation.
 *
 * Allowed: `https:` to any host, and `http:` only to a loopback host (`localhost`,
 * `127.0.0.0/8` in dotted decimal, `[::1]`, `[::ffff:127.x.x.x]`). Refused: a backslash anywhere,
 * whitespace or control characters, user info (also an empty one, `http://@host`), any other
 * scheme (`javascript:`, `vscode:`, `command:`, `data:`, `file:` …), a scheme not followed by
 * `//`, look-alike hosts (`http://127.0.0.1.example.com`), loopback hosts in another spelling
 * (`http://0x7f.1`, `http://127.1`) and anything the WHATWG URL parser refuses.
 *
 * The raw-string checks come first because the WHATWG parser repairs what a user would read
 * differently: it turns `\` into `/`, drops tabs and newlines and accepts `http:host`.
 */
export function isAllowedElicitationUrl(url: string): boolean {
  if (url.includes('\\') || SPACE_OR_INVISIBLE.test(url) || hasControl(url)) return false;
  const start = HTTP_START.exec(url);
  if (start === null) return false;
  const rawScheme = start[1] ?? '';
  const rawAuthority = start[2] ?? '';
  if (rawAuthority.includes('@') || rawAuthority === '') return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username !== '' || parsed.password !== '' || parsed.hostname === '') return false;
  if (parsed.protocol !== `${rawScheme.toLowerCase()}:`) return false;
  if (parsed.protocol === 'https:') return true;
  return parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname, rawHost(rawAuthority));
}

/** C0 and C1 control characters and DEL. */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** The host part of a raw authority (no user info by now): without the port, lower case. */
function rawHost(authority: string): string {
  const host = authority.startsWith('[')
    ? authority.slice(0, authority.indexOf(']') + 1)
    : authority.replace(/:[^:]*$/, '');
  return host.toLowerCase();
}

/**
 * The parsed host must be a loopback host, and an IPv4 or name host must be written as the
 * parser writes it, so that no other spelling of a host passes as loopback.
 */
function isLoopbackHost(hostname: string, raw: string): boolean {
  if (hostname.startsWith('['))
    return raw.startsWith('[') && (hostname === '[::1]' || MAPPED_LOOPBACK.test(hostname));
  if (raw !== hostname) return false;
  return hostname === 'localhost' || DOTTED_LOOPBACK.test(hostname);
}
