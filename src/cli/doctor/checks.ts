/**
 * The result of one check of `doctor` (docs/doctor.md): what was checked, the verdict, what was
 * found and what to do about it. `--json` prints these objects as they are; the text form prints
 * one line each. Every `detail` and `fix` is free of secrets (no token, header value or query of
 * a URL), and text that came from a server went through oneLine (src/ports/terminalText.ts).
 */
import { oneLine } from '../../ports/terminalText.js';

export type Verdict = 'ok' | 'fail' | 'warn' | 'skip';

export interface CheckResult {
  /** A stable name: `start`, `reach`, `revision`, `resource-metadata`, `authorization-server`, … */
  readonly check: string;
  readonly verdict: Verdict;
  readonly detail: string;
  /** What to do; empty when there is nothing to do. */
  readonly fix: string;
}

export const result = (check: string, verdict: Verdict, detail: string, fix = ''): CheckResult => ({
  check,
  verdict,
  detail,
  fix,
});

/** Longest text of a server that a line shows (a name, a version): a line stays a line. */
const MAX_SERVER_TEXT = 80;

/** Text a server chose (its name, an error code), safe for a terminal and short. */
export const serverText = (text: string): string => {
  const line = oneLine(text);
  return line.length > MAX_SERVER_TEXT ? `${line.slice(0, MAX_SERVER_TEXT)}…` : line;
};

/** Exit code 0 when no check failed (warn and skip do not fail, docs/doctor.md#doctor-exit). */
export const exitCodeOf = (results: readonly CheckResult[]): number =>
  results.some((r) => r.verdict === 'fail') ? 1 : 0;

/** One line: `ok    revision: … (fix: …)`. */
export const lineOf = (r: CheckResult): string =>
  `${r.verdict.padEnd(4)}  ${r.check}: ${r.detail}${r.fix === '' ? '' : ` (fix: ${r.fix})`}`;
