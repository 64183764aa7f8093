/** ASCII bytes the raw scanners of JSON lines look for. */
export const BACKSLASH = 0x5c;
export const CLOSE_BRACE = 0x7d;
export const CLOSE_BRACKET = 0x5d;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const LOWER_U = 0x75;
export const OPEN_BRACE = 0x7b;
export const OPEN_BRACKET = 0x5b;
export const QUOTE = 0x22;
