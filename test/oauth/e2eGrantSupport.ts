/**
 * What the end-to-end tests of the grants without a person share (e2eMachineGrants.test.ts,
 * e2eIdJag.test.ts): the token directory and its scan, credential files private to the user, a
 * started bridge whose output is scanned for the bridge's own secrets, and the error of a refused
 * `initialize` after the scan of its message and stderr.
 */
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { markerForms } from '../helpers/secretScan.js';
import { JWT_BEARER } from '../fixtures/oauth/authServer.js';
import type { AuthServer, PreRegisteredClient } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import type { RunOptions, RunPlace } from './e2eSupport.js';
import { startFileStoreBridge, type E2eSuite } from './e2eSuite.js';

export const tokenDir = (p: RunPlace): string => join(p.stateDir, 'mcp-bridge-sdk', 'vscode', 'tokens');

/** No marker, in any of its encodings, in any file of the token directory (`dir`: another profile's). */
export function expectDirectoryClean(p: RunPlace, markers: readonly string[], dir = tokenDir(p)): void {
  const files = readdirSync(dir);
  expect(files.length).toBeGreaterThan(0);
  for (const name of files) {
    const content = readFileSync(join(dir, name), 'latin1').toLowerCase();
    for (const marker of markers) {
      for (const form of markerForms(marker)) expect(content.includes(form.text.toLowerCase())).toBe(false);
    }
  }
}

/** Writes a file private to this user (a credential file). */
export function privateFile(p: RunPlace, name: string, content: string): string {
  const path = join(p.stateDir, '..', name);
  writeFileSync(path, content, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
}

/** The bridge, its output scanned at the end of the test for the server's secrets and `extra`. */
async function startScanned(
  suite: E2eSuite,
  as: AuthServer,
  mcp: ProtectedMcp,
  p: RunPlace,
  options: Partial<RunOptions>,
  extra: string[],
) {
  const run = await startFileStoreBridge(suite, as, mcp, p, options);
  // The run of startFileStoreBridge is scanned for the server's secrets; these are the bridge's own.
  suite.runs.push({ run, as: { issuedSecrets: () => [] }, extra });
  return run;
}

/** The `data` of the error of a refused `initialize` (`{ cause, detail }`, docs/errors.md#errors-table). */
async function refusedStart(
  suite: E2eSuite,
  as: AuthServer,
  mcp: ProtectedMcp,
  p: RunPlace,
  options: Partial<RunOptions>,
  secrets: readonly string[],
): Promise<unknown> {
  const failure = await startFileStoreBridge(suite, as, mcp, p, options).then(
    () => expect.fail('initialize should have failed'),
    (error: unknown) => error as Error & { stderr: string[]; data?: unknown },
  );
  const all = `${failure.message}\n${JSON.stringify(failure.data)}\n${failure.stderr.join('\n')}`;
  for (const secret of [...secrets, ...as.issuedSecrets()]) {
    for (const form of markerForms(secret)) expect(all.toLowerCase()).not.toContain(form.text.toLowerCase());
  }
  return failure.data;
}

/** `start` and `refusedStart` of the runs of `suite`. */
export function grantRuns(suite: E2eSuite) {
  return {
    start: (as: AuthServer, mcp: ProtectedMcp, p: RunPlace, options: Partial<RunOptions>, extra: string[]) =>
      startScanned(suite, as, mcp, p, options, extra),
    refusedStart: (
      as: AuthServer,
      mcp: ProtectedMcp,
      p: RunPlace,
      options: Partial<RunOptions>,
      secrets: readonly string[],
    ) => refusedStart(suite, as, mcp, p, options, secrets),
  };
}

/** The authorization server's client of the id-jag tests: a jwt-bearer client with `secret` (Basic). */
export const xaaClient = (secret: string): PreRegisteredClient => ({
  client_id: 'xaa-client',
  client_secret: secret,
  token_endpoint_auth_method: 'client_secret_basic',
  redirect_uris: [],
  grant_types: [JWT_BEARER],
});
