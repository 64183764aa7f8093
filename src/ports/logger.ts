/**
 * The logger the bridge, the edges and the sign-in write to. The CLI implements it on stderr with lines
 * `mcp-bridge-vscode: <scope>: <level>: <text>` (docs/logging.md#logging-line-format). Texts never hold
 * frame contents, form answers, header values, tokens, secrets or the upstream URL.
 */
export type LogLevel = 'err' | 'warn' | 'info' | 'debug';

/** The sink of the log lines of the bridge and the edges (docs/logging.md#logging-line-format). */
export interface Logger {
  log(scope: string, level: LogLevel, text: string): void;
  /** True when lines of this level are written (skip building debug texts otherwise). */
  enabled(level: LogLevel): boolean;
}

const ORDER: Record<LogLevel, number> = { err: 0, warn: 1, info: 2, debug: 3 };

export const levelEnabled = (threshold: LogLevel, level: LogLevel): boolean =>
  ORDER[level] <= ORDER[threshold];

export const silentLogger: Logger = { log: () => undefined, enabled: () => false };
