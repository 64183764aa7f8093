/**
 * The `WWW-Authenticate` header of a 401/403 (RFC 9110 §11.6.1, RFC 6750 §3,
 * docs/sign-in.md#sign-in-discovery and docs/sign-in.md#sign-in-scopes): a list of challenges, each a scheme followed by a token68
 * or by `name=value` parameters, where a value is a token or a quoted string that may hold
 * commas and escaped quotes. Several challenges may share one header line, separated by commas.
 * Pure: no I/O, no logging (the header may hold anything the server put there).
 */

export interface Challenge {
  /** Lower case (schemes are case-insensitive). */
  readonly scheme: string;
  /** Parameter names in lower case (case-insensitive); the first of a repeated name wins. */
  readonly params: Readonly<Record<string, string>>;
  readonly token68?: string;
}

/** What the sign-in uses of the Bearer challenge. */
export interface BearerChallenge {
  readonly resourceMetadata?: string;
  readonly scope?: string;
  readonly error?: string;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*/;
const SPACE = /^[ \t]*/;
const BARE = /^[^\s,"]+/;

/** A cursor over the header text. */
interface Cursor {
  readonly text: string;
  at: number;
}

const rest = (c: Cursor): string => c.text.slice(c.at);
const skipSpace = (c: Cursor): void => {
  c.at += SPACE.exec(rest(c))?.[0].length ?? 0;
};
const take = (c: Cursor, pattern: RegExp): string | undefined => {
  const match = pattern.exec(rest(c));
  if (match === null) return undefined;
  c.at += match[0].length;
  return match[0];
};

/** A quoted string from its opening quote; undefined when it does not end. */
function quoted(c: Cursor): string | undefined {
  let value = '';
  for (let i = c.at + 1; i < c.text.length; i += 1) {
    const ch = c.text[i];
    if (ch === '"') {
      c.at = i + 1;
      return value;
    }
    if (ch === '\\' && i + 1 < c.text.length) {
      i += 1;
      value += c.text[i];
    } else value += ch;
  }
  return undefined;
}

/** True when, at the cursor, a parameter `name =` follows (not the scheme of a new challenge). */
function paramAhead(c: Cursor): boolean {
  const probe: Cursor = { text: c.text, at: c.at };
  skipSpace(probe);
  if (take(probe, TOKEN) === undefined) return false;
  skipSpace(probe);
  return rest(probe).startsWith('=');
}

/** Skips empty list elements (`, ,`) and the spaces around them. */
function skipCommas(c: Cursor): void {
  for (;;) {
    skipSpace(c);
    if (!rest(c).startsWith(',')) return;
    c.at += 1;
  }
}

/** Moves past the next comma that is outside a quoted string (recovery from a malformed part). */
function skipToComma(c: Cursor): void {
  while (c.at < c.text.length) {
    const ch = c.text[c.at];
    if (ch === '"') {
      if (quoted(c) === undefined) c.at = c.text.length;
      continue;
    }
    c.at += 1;
    if (ch === ',') return;
  }
}

function parseParams(c: Cursor, params: Record<string, string>): void {
  for (;;) {
    skipCommas(c);
    if (c.at >= c.text.length || !paramAhead(c)) return;
    const name = (take(c, TOKEN) ?? '').toLowerCase();
    skipSpace(c);
    c.at += 1; // '='
    skipSpace(c);
    let value: string | undefined;
    if (rest(c).startsWith('"')) value = quoted(c);
    // Lenient: a bare value runs to a space or comma (some servers leave a URL unquoted).
    else value = take(c, BARE);
    if (value === undefined) {
      skipToComma(c);
      continue;
    }
    if (!(name in params)) params[name] = value;
    skipSpace(c);
    if (c.at < c.text.length && !rest(c).startsWith(',')) skipToComma(c);
  }
}

/** Every challenge of the header, in order. Malformed parts are skipped, never thrown on. */
export function parseWwwAuthenticate(header: string): Challenge[] {
  const c: Cursor = { text: header, at: 0 };
  const challenges: Challenge[] = [];
  while (c.at < c.text.length) {
    skipCommas(c);
    const scheme = take(c, TOKEN);
    if (scheme === undefined) {
      if (c.at < c.text.length) skipToComma(c);
      continue;
    }
    const params: Record<string, string> = Object.create(null) as Record<string, string>;
    const spaced = (SPACE.exec(rest(c))?.[0].length ?? 0) > 0;
    skipSpace(c);
    let token68: string | undefined;
    if (spaced) {
      // A token68 runs to a comma or the end: `abc==` is one, `abc=x` is a parameter.
      const probe: Cursor = { text: c.text, at: c.at };
      const candidate = take(probe, TOKEN68);
      skipSpace(probe);
      if (candidate !== undefined && (probe.at >= c.text.length || rest(probe).startsWith(','))) {
        token68 = candidate;
        c.at = probe.at;
      }
    }
    if (token68 === undefined) parseParams(c, params);
    challenges.push(
      token68 === undefined
        ? { scheme: scheme.toLowerCase(), params }
        : { scheme: scheme.toLowerCase(), params, token68 },
    );
  }
  return challenges;
}

/** The parameters the sign-in uses from the first Bearer challenge (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(header: string | undefined): BearerChallenge {
  if (header === undefined) return {};
  const bearer = parseWwwAuthenticate(header).find((challenge) => challenge.scheme === 'bearer');
  if (bearer === undefined) return {};
  const { resource_metadata: resourceMetadata, scope, error } = bearer.params;
  return {
    ...(resourceMetadata === undefined ? {} : { resourceMetadata }),
    ...(scope === undefined ? {} : { scope }),
    ...(error === undefined ? {} : { error }),
  };
}
