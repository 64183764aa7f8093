/**
 * `--grant device-code` end to end (docs/sign-in.md#sign-in-device-code): the SDK 1.x Client
 * through the BUILT bridge, against oidc-provider with `features.deviceFlow` and the protected MCP
 * fixture (e2eSupport.ts). The "user" is on another machine: it reads the one stderr line, opens
 * the verification URL and approves (deviceUser.ts). Every test ends with the secret scan of
 * stdout and stderr for every token and device code the server issued (e2eSuite.ts); the
 * approval test also scans the token directory.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { approveDevice, type DeviceUserEnd } from '../../fixtures/oauth/deviceUser.js';
import { expectNoSecrets } from '../../helpers/secretScan.js';
import { e2eSuite } from '../e2eSuite.js';
import { runPlace, startBridge, startServers } from '../e2eSupport.js';

const suite = e2eSuite({ requireMarkers: true });

/** The one line of the device grant: the verification URL and the user code (base-20, `****-****`). */
const DEVICE_LINE =
  /^mcp-bridge-vscode: sign in at (https:\/\/127\.0\.0\.1:\d+\/device\?user_code=([B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4})) with the code ([B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4})$/;

/** Every file below `dir`, as text. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, 'latin1'));
}

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

describe('--grant device-code through the bridge', () => {
  it('shows one stderr line, the user approves at the verification URL, and the tools work', async () => {
    const { as, mcp } = await startServers(suite.world, (close) => suite.closers.push(close), {
      deviceFlow: true,
      deviceInterval: 1,
    });
    const place = await runPlace(suite.world, 'device-');
    let approved: Promise<DeviceUserEnd> | undefined;
    const run = await startBridge(suite.world, {
      url: mcp.url,
      redirectPort: place.port,
      store: 'file',
      stateDir: place.stateDir,
      browserLog: place.browserLog,
      args: ['--grant', 'device-code'],
      // The user, elsewhere, reads the line and approves; initialize completes after that.
      stderrLine: (line) => {
        const match = DEVICE_LINE.exec(line);
        if (match !== null && approved === undefined)
          approved = approveDevice(match[1] ?? '', match[3] ?? '', { ca: suite.world.certs.caPem });
      },
    });
    suite.runs.push({ run, as });
    const end = await approved;
    expect(end).toMatchObject({ status: 200 });
    expect(end?.text).toContain('<p>signed in</p>');
    const lines = run.stderr.filter((line) => line.startsWith('mcp-bridge-vscode: sign in at '));
    expect(lines).toHaveLength(1);
    const match = DEVICE_LINE.exec(lines[0] ?? '');
    // verification_uri_complete carries the very code the line shows beside it.
    expect(match?.[2]).toBe(match?.[3]);
    expect(run.browserLog()).toEqual([]);
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'device' } }))).toBe('device');
    const tokenRequests = as.tokenRequests();
    expect(tokenRequests.at(-1)).toMatchObject({
      grantType: 'urn:ietf:params:oauth:grant-type:device_code',
      resource: [mcp.url],
      status: 200,
    });
    expect(new Set(tokenRequests.map((request) => request.grantType))).toEqual(
      new Set(['urn:ietf:params:oauth:grant-type:device_code']),
    );
    expect(as.stats()).toMatchObject({ registrations: 1, authorizationRequests: 0, codeGrants: 0 });
    // The device code and the tokens are in no file of the token directory in clear.
    const files = filesBelow(place.stateDir);
    expect(files.length).toBeGreaterThan(0);
    expectNoSecrets({ lines: [], stderr: files }, as.issuedSecrets());
  });

  it('without approval, initialize ends at --sign-in-timeout with sign_in_timeout', async () => {
    const { as, mcp } = await startServers(suite.world, (close) => suite.closers.push(close), {
      deviceFlow: true,
      deviceInterval: 1,
    });
    const place = await runPlace(suite.world, 'device-');
    const stderr: string[] = [];
    const failure = await startBridge(suite.world, {
      url: mcp.url,
      redirectPort: place.port,
      store: 'memory',
      stateDir: place.stateDir,
      browserLog: place.browserLog,
      args: ['--grant', 'device-code', '--sign-in-timeout', '2'],
      stderrLine: (line) => stderr.push(line),
    }).then(
      () => undefined,
      (error: unknown) => error as Error & { stderr: string[] },
    );
    // docs/errors.md#errors-sign-in: -32603, and the connection awaits initialize again.
    expect(failure?.message).toContain(
      'MCP error -32603: The sign-in did not complete in the time limit of the detail.',
    );
    expect(stderr.filter((line) => DEVICE_LINE.test(line))).toHaveLength(1);
    expect(stderr.slice(-2)).toEqual([
      'mcp-bridge-vscode: oauth: error: The sign-in did not complete in 2 s.',
      'mcp-bridge-vscode: bridge: error: server/discover failed: sign_in_timeout (2 s)',
    ]);
    // Polled, never granted.
    expect(as.tokenRequests().map((request) => request.status)).not.toContain(200);
    expect(as.tokenRequests().length).toBeGreaterThan(0);
    expectNoSecrets({ lines: [], stderr: failure?.stderr ?? [] }, as.issuedSecrets());
  });
});
