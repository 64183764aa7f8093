/** Shared helpers of the HTTP edge tests. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastValueFrom, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Logger, LogLevel } from '../../../src/ports/logger.js';

export interface RecordingLogger extends Logger {
  readonly lines: Array<{ scope: string; level: LogLevel; text: string }>;
}

export function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = [];
  return { lines, log: (scope, level, text) => lines.push({ scope, level, text }), enabled: () => true };
}

/** All values of a finite observable. */
export const collect = <T>(source: Observable<T>): Promise<T[]> => lastValueFrom(source.pipe(toArray()));

export interface TestCerts {
  readonly caPem: string;
  readonly key: string;
  readonly cert: string;
  remove(): void;
}

/** Runs test/fixtures/certs/make-test-ca.sh into a temporary folder. */
export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-certs-'));
  const script = fileURLToPath(new URL('../../fixtures/certs/make-test-ca.sh', import.meta.url));
  execFileSync('bash', [script, dir], { stdio: 'pipe' });
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    caPem: read('ca.pem'),
    key: read('server.key'),
    cert: read('server.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Records the host of every outgoing TCP connection of this process; `stop()` restores
 * `net.Socket.prototype.connect` and returns the hosts that are not loopback.
 */
export function guardLoopback(): { stop(): string[] } {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- restored as it was, called with apply
  const original = net.Socket.prototype.connect;
  const foreign: string[] = [];
  const patched = function (this: net.Socket, ...args: unknown[]) {
    // net.connect() passes its normalized arguments as one array.
    const [first, second] = Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
    const options = typeof first === 'object' && first !== null ? first : undefined;
    const host = options !== undefined ? (options as { host?: unknown; path?: unknown }).host : second;
    const isPipe = options !== undefined && typeof (options as { path?: unknown }).path === 'string';
    if (!isPipe) {
      const name = typeof host === 'string' ? host : 'localhost';
      if (!LOOPBACK.test(name)) foreign.push(name);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  };
  net.Socket.prototype.connect = patched;
  return {
    stop() {
      net.Socket.prototype.connect = original;
      return foreign;
    },
  };
}
