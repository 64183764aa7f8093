/**
 * The browser opener as a real process (docs/sign-in.md#sign-in-consent, docs/security.md#security-rules items 2 and 11): a fake
 * browser program given as `$BROWSER` records its arguments, its environment and its standard
 * streams, and the test checks that shell syntax in a URL runs nothing.
 */
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { openBrowser } from '../../src/oauth/browser.js';
import {} from '../helpers/bridgeProcess.js';
import { recordingLogger } from './receiverHttp.js';

interface Record {
  readonly argv: string[];
  readonly env: { [name: string]: string };
  readonly stdin: string;
  readonly stdout: string;
  readonly pid: number;
}

let dir: string;
let fake: string;
let out: string;
const started: number[] = [];

/** The fake browser: one JSON line per run, then the exit code of $FAKE_EXIT (or a long sleep). */
const FAKE = `#!${process.execPath}
const fs = require('node:fs');
const link = (fd) => { try { return fs.readlinkSync('/proc/self/fd/' + fd); } catch { return 'unknown'; } };
fs.appendFileSync(process.env.FAKE_OUT, JSON.stringify({
  argv: process.argv.slice(2), env: process.env, stdin: link(0), stdout: link(1), pid: process.pid,
}) + '\\n');
if (process.env.FAKE_EXIT === 'hang') setTimeout(() => undefined, 60000);
else process.exitCode = Number(process.env.FAKE_EXIT || 0);
`;

const records = (): Record[] =>
  existsSync(out)
    ? readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record)
    : [];

const baseEnv = (extra: { [name: string]: string } = {}): NodeJS.ProcessEnv => ({
  PATH: process.env['PATH'] ?? '/usr/bin:/bin',
  BROWSER: fake,
  FAKE_OUT: out,
  ...extra,
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'opener-'));
  fake = join(dir, 'fake-browser');
  out = join(dir, 'runs.jsonl');
  writeFileSync(fake, FAKE);
  chmodSync(fake, 0o755);
});

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid);
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('openBrowser (process)', () => {
  it('runs $BROWSER with exactly one argument, the start URL, without the secret variables, stdin and stdout on /dev/null', async () => {
    const logger = recordingLogger();
    const url = 'http://127.0.0.1:41894/start/abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ';
    const env = baseEnv({
      MCP_BRIDGE_TOKEN_KEY: 'f'.repeat(64),
      MCP_BRIDGE_CLIENT_SECRET: 'client-secret-7d1e',
      MY_HEADER_VALUE: 'header-secret-2b9a',
      KEEP_ME: 'visible',
    });
    const opened = await openBrowser(url, {
      env,
      secretVariables: ['MY_HEADER_VALUE'],
      logger,
      platform: 'linux',
    });
    expect(opened).toBe(true);
    const [run, ...more] = records();
    expect(more).toEqual([]);
    expect(run!.argv).toEqual([url]);
    expect(run!.env['KEEP_ME']).toBe('visible');
    expect(Object.keys(run!.env).filter((name) => /MCP_BRIDGE|MY_HEADER/.test(name))).toEqual([]);
    expect(JSON.stringify(run!.env)).not.toMatch(/client-secret-7d1e|header-secret-2b9a|ffffffffffffffff/);
    expect([run!.stdin, run!.stdout]).toEqual(['/dev/null', '/dev/null']);
    expect(logger.lines).toEqual([]);
  });

  it('passes shell syntax in the URL as one literal argument, and it runs nothing', async () => {
    const marker = (name: string) => join(dir, name);
    const urls = [
      `http://127.0.0.1:1/start/x;touch\${IFS}${marker('semicolon')}`,
      `http://127.0.0.1:1/start/$(touch\${IFS}${marker('dollar')})`,
      `http://127.0.0.1:1/start/\`touch\${IFS}${marker('backtick')}\``,
      `http://127.0.0.1:1/start/x|touch\${IFS}${marker('pipe')}`,
      `http://127.0.0.1:1/start/x&&touch\${IFS}${marker('and')}&`,
      `http://127.0.0.1:1/start/'";touch\${IFS}${marker('quotes')};'"`,
    ];
    for (const url of urls) {
      expect(await openBrowser(url, { env: baseEnv(), secretVariables: [], logger: recordingLogger() })).toBe(
        true,
      );
    }
    expect(records().map((run) => run.argv)).toEqual(urls.map((url) => [url]));
    expect(readdirSync(dir).sort()).toEqual(['fake-browser', 'runs.jsonl']);
  });

  it('refuses a URL with a space or a leading option, starts nothing, and logs the §6.7 lines', async () => {
    const logger = recordingLogger();
    const touched = join(dir, 'x');
    for (const url of [`http://127.0.0.1:1/start/$(touch ${touched})`, `--help`, `-a Calculator`]) {
      expect(await openBrowser(url, { env: baseEnv(), secretVariables: [], logger })).toBe(false);
    }
    expect(records()).toEqual([]);
    expect(existsSync(touched)).toBe(false);
    expect(logger.lines.slice(0, 2)).toEqual([
      'oauth: warn: the bridge cannot start the browser opener: the start URL is not an http URL',
      'oauth: warn: the browser did not open: open the URL of the sign-in line in a browser',
    ]);
    expect(logger.lines).toHaveLength(6);
  });

  it('takes a $BROWSER with arguments or shell syntax as one program path, which does not exist', async () => {
    const logger = recordingLogger();
    const touched = join(dir, 'y');
    const env = baseEnv({ BROWSER: `${fake} --flag;touch ${touched}` });
    expect(await openBrowser('http://127.0.0.1:1/start/t', { env, secretVariables: [], logger })).toBe(false);
    expect(records()).toEqual([]);
    expect(existsSync(touched)).toBe(false);
    expect(logger.lines).toEqual([
      'oauth: warn: the bridge cannot start the browser opener: ENOENT',
      'oauth: warn: the browser did not open: open the URL of the sign-in line in a browser',
    ]);
  });

  it('logs "the browser opener stopped with an error" when the opener exits with another code than 0', async () => {
    const logger = recordingLogger();
    const env = baseEnv({ FAKE_EXIT: '3' });
    expect(await openBrowser('http://127.0.0.1:1/start/t', { env, secretVariables: [], logger })).toBe(false);
    expect(records()).toHaveLength(1);
    expect(logger.lines).toEqual([
      'oauth: warn: the browser opener stopped with an error',
      'oauth: warn: the browser did not open: open the URL of the sign-in line in a browser',
    ]);
  });

  it('stops waiting for an opener that keeps running and counts it as opened', async () => {
    const logger = recordingLogger();
    const env = baseEnv({ FAKE_EXIT: 'hang' });
    const opened = await openBrowser('http://127.0.0.1:1/start/t', {
      env,
      secretVariables: [],
      logger,
      waitMs: 300,
    });
    expect(opened).toBe(true);
    // The opener still runs: on a loaded machine it may write its record only after the wait.
    await waitFor(() => records().length === 1, { timeoutMs: 10_000, what: 'the record of the opener' });
    const [run] = records();
    started.push(run!.pid);
    // It was not killed: the browser it started may be the one the user signs in with.
    expect(() => process.kill(run!.pid, 0)).not.toThrow();
    expect(logger.lines).toEqual([]);
  });
});
