/**
 * The stderr logger of the executable (docs/logging.md#logging-line-format): whole lines
 * `mcp-bridge-vscode: <scope>: <level>: <text>`, one write per line.
 */
import { levelEnabled, type Logger, type LogLevel } from '../ports/logger.js';
import { oneLine } from '../ports/terminalText.js';

export const PROGRAM_NAME = 'mcp-bridge-vscode';

const LEVEL_TEXT: Readonly<Record<LogLevel, string>> = {
  err: 'error',
  warn: 'warning',
  info: 'info',
  debug: 'debug',
};

// The terminal rule of every printed text has one home (src/ports/terminalText.ts).
export { oneLine };

/** One log line, with its newline. */
export const formatLogLine = (
  scope: string,
  level: LogLevel,
  text: string,
  program: string = PROGRAM_NAME,
): string => `${program}: ${oneLine(scope)}: ${LEVEL_TEXT[level]}: ${oneLine(text)}\n`;

/**
 * The diagnostic line of a command-line error (without its newline); `scope` is the profile's
 * log scope (Profile.logScope).
 */
export const formatDiagnostic = (
  message: string,
  program: string = PROGRAM_NAME,
  scope: string = 'vscode',
): string => `${program}: ${oneLine(scope)}: error: ${oneLine(message)}`;

/**
 * A Logger that writes the lines of `level` and more severe ones, each with one `write` call;
 * `program` starts each line (the profile's name).
 */
export function createStderrLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => {
    process.stderr.write(line);
  },
  program: string = PROGRAM_NAME,
): Logger {
  return {
    enabled: (candidate) => levelEnabled(level, candidate),
    log: (scope, candidate, text) => {
      if (levelEnabled(level, candidate)) write(formatLogLine(scope, candidate, text, program));
    },
  };
}
