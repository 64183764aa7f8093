/**
 * Texts of the input-request codec. Keys and client messages come from the other side, so they
 * are clipped and stripped of control characters before they go into a detail or a log line.
 * Pure: no rxjs, no node:*.
 */

/** Longest key or client message quoted in a detail or log text, in characters. */
export const MAX_QUOTED_CHARS = 120;

/** A peer-controlled text made safe to quote: control characters become `?`, long texts end in `…`. */
export function quote(text: string): string {
  let safe = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    safe += code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029 ? '?' : char;
  }
  const chars = [...safe];
  return chars.length > MAX_QUOTED_CHARS ? `${chars.slice(0, MAX_QUOTED_CHARS).join('')}…` : safe;
}

/** `input request '<key>': <text>`, the form of every detail about one input request. */
export const keyDetail = (key: string, text: string): string => `input request '${quote(key)}': ${text}`;
