/**
 * The log lines of an exit with code 1 and of a failed stdout: one line with the
 * error code and its cause, the stack only at `debug`. Texts hold codes and names, never the
 * messages of errors (they may hold a URL or frame contents).
 */
import type { LogLevel } from '../ports/logger.js';
import { causeOf } from '../ports/causeOf.js';
import { isBridgeError } from '../protocol/bridgeError.js';

export interface ReportLine {
  readonly level: LogLevel;
  readonly text: string;
}

/**
 * The lines for a bridge that stops with exit code 1. An upstream that exited has logged its own
 * line with the exit code or signal (createBridge.ts), so that path adds none.
 */
export function exitLines(error: unknown, debug: boolean): ReportLine[] {
  if (isBridgeError(error) && error.code === 'upstream_exited') return [];
  const code = isBridgeError(error) ? error.code : 'internal';
  const inner =
    error instanceof Error && error.cause !== undefined ? `, caused by ${causeOf(error.cause)}` : '';
  const lines: ReportLine[] = [
    { level: 'err', text: `the bridge stops with exit code 1: ${code} (${causeOf(error)}${inner})` },
  ];
  if (debug && error instanceof Error && error.stack !== undefined)
    lines.push({ level: 'debug', text: error.stack });
  return lines;
}

/** The line of a stdout error: none for EPIPE (the client went away; the end of stdin follows). */
export function stdoutErrorLine(error: unknown): ReportLine | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'EPIPE') return undefined;
  return { level: 'err', text: `writing to stdout failed (${causeOf(error)})` };
}
