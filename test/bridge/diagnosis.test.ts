/**
 * Diagnosable failures: an exit with code 1 logs one line with the error code
 * and its cause (the stack only at debug), a stdout error other than EPIPE is logged, and the
 * upstream connection logs the original cause of a transport failure.
 */
import { NEVER, Subject, firstValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/ports/logger.js';
import { createRpcConnection } from '../../src/bridge/rpcConnection.js';
import { exitLines, stdoutErrorLine } from '../../src/node/exitReport.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import type { Inbound } from '../../src/protocol/parseLine.js';

const ioError = (code: string, message: string): Error => Object.assign(new Error(message), { code });

describe('the lines of an exit with code 1', () => {
  it('an internal failure logs one line with the code and the cause, without its message', () => {
    const error = new TypeError('secret https://example.com/?key=abc');
    expect(exitLines(error, false)).toEqual([
      { level: 'err', text: 'the bridge stops with exit code 1: internal (TypeError)' },
    ]);
  });

  it('a bridge error logs its code, its detail and the code of its cause', () => {
    const error = new BridgeError('transport_failed', {
      detail: 'tools/list',
      cause: ioError('ECONNRESET', 'x'),
    });
    expect(exitLines(error, false)).toEqual([
      {
        level: 'err',
        text: 'the bridge stops with exit code 1: transport_failed (transport_failed: tools/list, caused by Error ECONNRESET)',
      },
    ]);
  });

  it('the stack comes only at debug, as a second line', () => {
    const error = new RangeError('deep');
    const lines = exitLines(error, true);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toEqual({ level: 'debug', text: error.stack });
    expect(lines[1]?.text).toMatch(/^RangeError: deep\n\s+at /);
  });

  it('an upstream that exited has logged its own line with the exit code', () => {
    expect(exitLines(new BridgeError('upstream_exited'), true)).toEqual([]);
  });
});

describe('stdout errors', () => {
  it('EPIPE is quiet, any other error is logged with its code', () => {
    expect(stdoutErrorLine(ioError('EPIPE', 'write EPIPE'))).toBeUndefined();
    expect(stdoutErrorLine(ioError('EAGAIN', 'write EAGAIN'))).toEqual({
      level: 'err',
      text: 'writing to stdout failed (Error EAGAIN)',
    });
  });
});

describe('the upstream connection', () => {
  it('logs the original cause of a transport failure and fails the pending request with transport_failed', async () => {
    const inbound$ = new Subject<Inbound>();
    const lines: string[] = [];
    const logger: Logger = {
      log: (scope, level, text) => lines.push(`${scope}: ${level}: ${text}`),
      enabled: () => false,
    };
    const connection = createRpcConnection(
      { inbound$, send: () => undefined, exit$: NEVER, close: () => undefined },
      logger,
    );
    const pending = firstValueFrom(connection.request('tools/list', {}));
    inbound$.error(ioError('EIO', 'read EIO'));
    await expect(pending).rejects.toMatchObject({ code: 'transport_failed' });
    expect(lines).toEqual(['bridge: err: reading the output of the upstream server failed (Error EIO)']);
    connection.close();
  });
});
