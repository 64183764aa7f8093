/**
 * `doctor` against local fixtures (docs/doctor.md): a working server exits
 * 0; a server of 2025-11-25 only, a URL whose certificate is not trusted, resource metadata that
 * names a missing authorization server and a command that does not exist each name their cause
 * in their line and exit 1. Needs the build (`npm run build`) and, for the TLS cases, bash and
 * openssl (test/helpers/platform.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE, FIXTURE, scripted } from '../helpers/bridgeProcess.js';
import { NO_POSIX_TOOLS } from '../helpers/platform.js';
import { killAllPeers, spawnPeer } from '../helpers/rawPeer.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/httpFixture.js';
import { startProtectedMcp, type ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { bridgeEnv, makeTestCerts, writeIn, type TestCerts } from './httpSupport.js';

interface Outcome {
  readonly code: number | null;
  readonly lines: readonly string[];
}

async function doctor(args: readonly string[]): Promise<Outcome> {
  const cli = spawnPeer(process.execPath, [BRIDGE, 'doctor', ...args], bridgeEnv());
  const exit = await cli.exit;
  await cli.stdoutClosed;
  return { code: exit.code, lines: cli.lines };
}

/** The line of one check (`<verdict>  <check>: …`). */
const lineOf = (outcome: Outcome, check: string): string | undefined =>
  outcome.lines.find((line) => line.slice(6).startsWith(`${check}:`));

let fixture: HttpFixture | undefined;
let protectedMcp: ProtectedMcp | undefined;
afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  await protectedMcp?.close();
  fixture = undefined;
  protectedMcp = undefined;
});

describe('doctor with an upstream command', () => {
  it('exits 0 with every check ok for a working 2026-07-28 server', async () => {
    const outcome = await doctor(['--', process.execPath, FIXTURE]);
    expect(outcome.code).toBe(0);
    expect(outcome.lines).toEqual([
      'ok    start: the command "node" started and answers on stdout',
      'ok    revision: the server answers server/discover with 2026-07-28',
    ]);
  });

  it('names 2025-11-25 and exits 1 for a server that speaks only that revision', async () => {
    const outcome = await doctor(['--', ...scripted('legacy-only')]);
    expect(outcome.code).toBe(1);
    expect(lineOf(outcome, 'revision')).toBe(
      'fail  revision: it speaks 2025-11-25 only, not 2026-07-28 (server/discover was refused with the ' +
        'error -32601) (fix: the bridge needs a 2026-07-28 server; a client of 2025-11-25 can use this ' +
        'server without the bridge)',
    );
  });

  it('names the command that does not exist, as JSON with --json, and exits 1', async () => {
    const outcome = await doctor(['--json', '--', 'mcp-doctor-no-such-command']);
    expect(outcome.code).toBe(1);
    expect(JSON.parse(outcome.lines.join('\n'))).toEqual([
      {
        check: 'start',
        verdict: 'fail',
        detail: 'the command "mcp-doctor-no-such-command" was not found (ENOENT)',
        fix: 'give the full path of the command, or add its folder to PATH',
      },
      { check: 'revision', verdict: 'skip', detail: 'the upstream did not start', fix: '' },
    ]);
  });
});

describe('doctor with a URL', () => {
  it('exits 0 for a working server that asks for no sign-in, and prints no query of the URL', async () => {
    fixture = await startHttpFixture();
    const outcome = await doctor(['--token-store', 'memory', `${fixture.url}?key=SECRET-QUERY-7f3`]);
    expect(outcome.code).toBe(0);
    expect(outcome.lines.slice(0, 2)).toEqual([
      `ok    reach: ${fixture.url} (direct) answers (HTTP 200)`,
      'ok    revision: the server answers server/discover with 2026-07-28',
    ]);
    expect(lineOf(outcome, 'resource-metadata')).toBe(
      'skip  resource-metadata: the server asks for no sign-in',
    );
    expect(outcome.lines.join('\n')).not.toContain('SECRET-QUERY-7f3');
  });
});

describe.skipIf(NO_POSIX_TOOLS)('doctor with an https URL', () => {
  let certs: TestCerts;
  let dir: string;
  let caFile: string;
  beforeAll(() => {
    certs = makeTestCerts();
    dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-doctor-'));
    caFile = writeIn(dir, 'ca.pem', certs.caPem);
  });
  afterAll(() => {
    certs.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names the untrusted certificate and the --ca-file fix, and exits 1, without --ca-file', async () => {
    fixture = await startHttpFixture({ tls: { key: certs.key, cert: certs.cert } });
    const outcome = await doctor(['--token-store', 'memory', fixture.url]);
    expect(outcome.code).toBe(1);
    expect(lineOf(outcome, 'reach')).toMatch(
      /^fail {2}reach: https:\/\/127\.0\.0\.1:\d+\/mcp \(direct\): the certificate of the server is not trusted \([A-Z_]+\) \(fix: give the CA certificate of the server with --ca-file \(or NODE_EXTRA_CA_CERTS\)\)$/,
    );
    expect(fixture.received).toEqual([]);
  });

  it('names the missing authorization server of the resource metadata, and exits 1', async () => {
    // An issuer on a port where nothing listens: its metadata cannot be found.
    const missing = { issuer: 'https://127.0.0.1:9/as', verify: () => Promise.resolve(undefined) };
    protectedMcp = await startProtectedMcp({ tls: certs, authServer: missing });
    const outcome = await doctor(['--ca-file', caFile, '--token-store', 'memory', protectedMcp.url]);
    expect(outcome.code).toBe(1);
    expect(lineOf(outcome, 'reach')).toBe(`ok    reach: ${protectedMcp.url} (direct) answers (HTTP 401)`);
    expect(lineOf(outcome, 'resource-metadata')).toBe(
      'ok    resource-metadata: names the authorization server https://127.0.0.1:9/as',
    );
    expect(lineOf(outcome, 'authorization-server')).toBe(
      'fail  authorization-server: https://127.0.0.1:9/as: the authorization server has no metadata ' +
        '(fix: the authorization server the resource metadata names must answer with its metadata ' +
        '(RFC 8414); tell the operator of the server)',
    );
  });
});
