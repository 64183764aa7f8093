/**
 * The options of `serveStdio` that the executables use (`mcp-bridge-vscode`
 * and `mcp-bridge` serve through serveStdio): `scope` names serveStdio's own lines (the start
 * warnings and the watchdog, docs/lifecycle.md#lifecycle-end-of-input), and the watchdog ends the serve with
 * code 0 when the bridge does not stop after the end of stdin.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { genericProfile } from '../../src/index.js';
import { createStderrLogger, serveStdio } from '../../src/node/index.js';
import { initializeRequest } from '../helpers/bridgeProcess.js';

/**
 * An upstream that never answers and ignores SIGTERM, so that only the watchdog's kill ends it;
 * it writes its pid to `marker` once it runs.
 */
const stuck = (marker: string): string[] => [
  process.execPath,
  '-e',
  "require('node:fs').writeFileSync(process.argv[1], String(process.pid)); process.on('SIGTERM', () => {}); " +
    'process.stdin.resume(); setInterval(() => {}, 1000);',
  marker,
];

/** True while a process of that pid exists (a zombie counts until Node reaps it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('serveStdio options', () => {
  it('logs the start warnings and the watchdog under the scope given, and resolves 0', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const logs: string[] = [];
    const dir = mkdtempSync(path.join(tmpdir(), 'serve-stdio-'));
    const marker = path.join(dir, 'started');
    const code = serveStdio(
      genericProfile,
      { kind: 'command', argv: stuck(marker) },
      {
        stdin,
        stdout,
        version: '9.9.9',
        scope: 'product',
        watchdogMs: 200,
        warnings: ['a warning of the product'],
        logger: createStderrLogger('info', (line) => logs.push(line), 'mcp-bridge'),
      },
    );
    stdin.write(`${JSON.stringify(initializeRequest(1))}\n`);
    // The upstream is started by initialize; its discovery never ends, so the bridge cannot stop.
    await waitFor(() => existsSync(marker) && readFileSync(marker, 'utf8') !== '');
    const pid = Number(readFileSync(marker, 'utf8'));
    stdin.end();
    try {
      expect(await code).toBe(0);
      // §2.13: an upstream that ignores SIGTERM does not outlive the serve (the watchdog kills its
      // group; in the library the stop's SIGKILL follows too, so only removing both fails this).
      await waitFor(() => !alive(pid));
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
    expect(logs[0]).toBe('mcp-bridge: product: warning: a warning of the product\n');
    expect(logs).toContain(
      'mcp-bridge: product: warning: the bridge did not stop in 0.2 s after the end of stdin, thus it stops now\n',
    );
  });
});
