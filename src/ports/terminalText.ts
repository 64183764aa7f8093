/**
 * The one rule for text from elsewhere (a server, an authorization server, a client) that the
 * bridge prints to a terminal: a log line, `status`, `logout` (docs/logging.md#logging-line-format,
 * SECURITY.md). Control characters would let that text move the cursor, rewrite earlier lines or
 * set the window title, so none passes.
 */

/** Keeps a text on one line: line breaks become spaces, other control characters U+FFFD. */
export const oneLine = (text: string): string =>
  // eslint-disable-next-line no-control-regex -- control characters are what this replaces
  text.replace(/\r\n|[\n\r\u2028\u2029\u0085]/g, ' ').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '\uFFFD');
