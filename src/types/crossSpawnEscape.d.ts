/**
 * cross-spawn's escaping for cmd.exe (`lib/util/escape.js`, CommonJS, no types of its own): the
 * same rules its `spawn` applies to `.cmd`/`.bat` launchers (src/edges/processPlan.ts).
 */
declare module 'cross-spawn/lib/util/escape.js' {
  /** Escapes the command for cmd.exe (`^` before each meta character). */
  export function command(arg: string): string;
  /** Quotes one argument for the program and escapes it for cmd.exe, twice for an npm cmd-shim. */
  export function argument(arg: string, doubleEscapeMetaChars: boolean): string;
  const escape: { command: typeof command; argument: typeof argument };
  export default escape;
}
