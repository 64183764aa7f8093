import { describe, expect, it } from 'vitest';
import type { LogLevel } from '../../src/ports/logger.js';
import { createStderrLogger, formatDiagnostic, formatLogLine, oneLine } from '../../src/node/log.js';

function capture(level: LogLevel) {
  const lines: string[] = [];
  return { lines, logger: createStderrLogger(level, (line) => lines.push(line)) };
}

describe('stderr lines (docs/logging.md#logging-line-format)', () => {
  it('a line is "mcp-bridge-vscode: <scope>: <level text>: <text>" and ends with a newline', () => {
    const { lines, logger } = capture('debug');
    logger.log('bridge', 'err', 'a');
    logger.log('vscode', 'warn', 'b');
    logger.log('mcp_stdio', 'info', 'c');
    logger.log('mcp_router', 'debug', 'd');
    expect(lines).toEqual([
      'mcp-bridge-vscode: bridge: error: a\n',
      'mcp-bridge-vscode: vscode: warning: b\n',
      'mcp-bridge-vscode: mcp_stdio: info: c\n',
      'mcp-bridge-vscode: mcp_router: debug: d\n',
    ]);
  });

  it.each([
    ['err', ['err']],
    ['warn', ['err', 'warn']],
    ['info', ['err', 'warn', 'info']],
    ['debug', ['err', 'warn', 'info', 'debug']],
  ] as const)('at level %s only lines of %j are written', (threshold, written) => {
    const { lines, logger } = capture(threshold);
    const levels: readonly LogLevel[] = ['err', 'warn', 'info', 'debug'];
    for (const level of levels) logger.log('bridge', level, level);
    expect(lines).toHaveLength(written.length);
    expect(levels.filter((level) => logger.enabled(level))).toEqual(written);
  });

  it('each line is one write, and line breaks in a text keep it one line', () => {
    const { lines, logger } = capture('info');
    logger.log('bridge', 'info', 'one\ntwo\r\nthree\rfour\u2028five');
    expect(lines).toEqual(['mcp-bridge-vscode: bridge: info: one two three four five\n']);
  });

  it('other control characters are replaced', () => {
    expect(oneLine('a\x1b[31mb\x00c\td')).toBe('a\uFFFD[31mb\uFFFDc\td');
    expect(formatLogLine('x\ny', 'info', 't')).toBe('mcp-bridge-vscode: x y: info: t\n');
  });

  it('formatDiagnostic gives the error line of a command-line mistake, without a newline', () => {
    expect(formatDiagnostic('the option --x is not known')).toBe(
      'mcp-bridge-vscode: vscode: error: the option --x is not known',
    );
    expect(formatDiagnostic('a\nb')).toBe('mcp-bridge-vscode: vscode: error: a b');
  });
});
