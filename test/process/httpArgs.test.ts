/**
 * Arguments of the URL form that cannot work end the executable with exit code 2 before anything
 * is sent, with an empty stdout and without any value on stderr (docs/http-upstream.md#http-url-rules,
 * §6.2, §6.3, §8).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllPeers } from '../helpers/rawPeer.js';
import { bridgeEnv, startUrlBridge, writeIn } from './httpSupport.js';

const SECRET = 'SECRET-v5';
const GOOD_URL = 'https://127.0.0.1:9/mcp';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-args-'));
});
// The cases run concurrently: each bridge exits by itself, so the peers are killed only at the end.
afterAll(async () => {
  await killAllPeers();
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  readonly code: number | null;
  readonly stdout: readonly string[];
  readonly stderr: readonly string[];
}

async function run(url: string, args: readonly string[], env: Record<string, string> = {}): Promise<Outcome> {
  const peer = startUrlBridge(url, args, bridgeEnv(env));
  const { code } = await peer.exit;
  await peer.stdoutClosed;
  return { code, stdout: peer.lines, stderr: peer.stderr };
}

/** Exit 2, nothing on stdout, the diagnostic on the first stderr line, no secret anywhere. */
function expectRefused(outcome: Outcome, diagnostic: string | RegExp, secrets: readonly string[] = []): void {
  expect(outcome.code).toBe(2);
  expect(outcome.stdout).toEqual([]);
  const first = outcome.stderr[0] ?? '';
  if (typeof diagnostic === 'string') expect(first).toBe(`mcp-bridge-vscode: vscode: error: ${diagnostic}`);
  else expect(first).toMatch(diagnostic);
  for (const secret of [SECRET, ...secrets]) {
    expect(outcome.stderr.filter((line) => line.includes(secret))).toEqual([]);
  }
}

describe.concurrent('--header-env', () => {
  it('an unset variable exits with code 2 and an empty stdout, naming the variable only', async () => {
    const outcome = await run(GOOD_URL, ['--header-env', 'X-Api-Key=BRIDGE_TEST_UNSET_VAR']);
    expectRefused(
      outcome,
      'the environment variable BRIDGE_TEST_UNSET_VAR of --header-env is not set, or it is empty',
    );
  });
});

describe.concurrent('refused headers', () => {
  const cases: ReadonlyArray<readonly [string[], string]> = [
    [['--header', `Mcp-Session-Id: ${SECRET}`], 'the header Mcp-Session-Id of --header is not permitted'],
    [
      ['--header', `Proxy-Authorization: Basic ${SECRET}`],
      'the header Proxy-Authorization of --header is not permitted: give proxy credentials in the proxy URL (HTTPS_PROXY)',
    ],
    [
      ['--header-env', 'MCP-Protocol-Version=HEADER_VALUE'],
      'the header MCP-Protocol-Version of --header-env is not permitted',
    ],
    [
      ['--header', `X-Team: ${SECRET}`, '--header-env', 'x-team=HEADER_VALUE'],
      'the header x-team occurs more than one time in --header and --header-env',
    ],
  ];
  it.each(cases)('%j exits with code 2 and names the header, never its value', async (args, diagnostic) => {
    const outcome = await run(GOOD_URL, args, { HEADER_VALUE: SECRET });
    expectRefused(outcome, new RegExp(`^mcp-bridge-vscode: vscode: error: ${escape(diagnostic)}`));
  });
});

describe.concurrent('URL rules', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    [`http://example.com/mcp?key=${SECRET}`, 'http is allowed only for a loopback host'],
    [`http://127.0.0.1.nip.io/mcp?key=${SECRET}`, 'http is allowed only for a loopback host'],
    [`https://user:${SECRET}@example.com/mcp`, ''],
  ];
  it.each(cases)('%s exits with code 2 and the URL never appears', async (url, hint) => {
    const outcome = await run(url, []);
    expectRefused(
      outcome,
      new RegExp(
        `^mcp-bridge-vscode: vscode: error: the URL of the upstream server is not valid: .*${escape(hint)}`,
      ),
      [url, url.replace(/^[a-z]+:\/\//, '')],
    );
  });
});

describe.concurrent('--ca-file', () => {
  it('a missing file, a file without certificates and a broken certificate exits with code 2 without the path or the contents', async () => {
    const missing = join(dir, `missing-${SECRET}.pem`);
    const text = writeIn(dir, `text-${SECRET}.pem`, `not a certificate ${SECRET}\n`);
    const broken = writeIn(
      dir,
      `broken-${SECRET}.pem`,
      `-----BEGIN CERTIFICATE-----\n${Buffer.from(SECRET).toString('base64')}\n-----END CERTIFICATE-----\n`,
    );
    const outcomes = await Promise.all(
      [missing, text, broken].map((file) => run(GOOD_URL, ['--ca-file', file])),
    );
    const hints = [
      'the file cannot be read (ENOENT)',
      'the file holds no PEM certificate ("-----BEGIN CERTIFICATE-----")',
      'certificate 1 of the file is not a valid X.509 certificate',
    ];
    outcomes.forEach((outcome, index) =>
      expectRefused(outcome, `cannot use the CA certificates of --ca-file: ${hints[index]}`, [dir]),
    );
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
