/**
 * The registration paths end to end (docs/sign-in.md#sign-in-registration): the SDK 1.x
 * Client through the built bridge against oidc-provider: a client ID metadata document given with
 * `--client-metadata-url`, and a server that offers no registration at all (dynamic registration
 * and a pre-registered client with a secret are in e2e.test.ts). Each run ends with the secret scan.
 */
import { describe, expect, it } from 'vitest';
import type { AuthServerOptions } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { readBrowserLog } from '../fixtures/oauth/testBrowser.js';
import { runPlace, startBridge, startServers } from './e2eSupport.js';
import { e2eSuite } from './e2eSuite.js';
import type { RunOptions, RunPlace as Place } from './e2eSupport.js';

const suite = e2eSuite();
const { closers, runs } = suite;

const place = (): Promise<Place> => runPlace(suite.world, 'registration-');

const servers = (asOptions: Partial<AuthServerOptions>): ReturnType<typeof startServers> =>
  startServers(suite.world, (close) => closers.push(close), asOptions);

function options(mcp: ProtectedMcp, p: Place, extra: Partial<RunOptions> = {}): RunOptions {
  return {
    url: mcp.url,
    redirectPort: p.port,
    store: 'memory',
    stateDir: p.stateDir,
    browserLog: p.browserLog,
    ...extra,
  };
}

const text = (result: unknown): string | undefined =>
  (result as { content?: Array<{ text?: string }> }).content?.[0]?.text;

describe('registration paths through the executable', () => {
  it('a client ID metadata document of --client-metadata-url replaces the registration', async () => {
    const p = await place();
    const { as, mcp } = await servers({ metadataDocuments: true, dynamicRegistration: false });
    const document = as.hostClientMetadataDocument({
      client_name: 'mcp-bridge-vscode (e2e)',
      redirect_uris: [`http://127.0.0.1:${p.port}/callback`],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    const run = await startBridge(
      suite.world,
      options(mcp, p, { args: ['--client-metadata-url', document] }),
    );
    runs.push({ run, as, extra: [] });
    expect(text(await run.client.callTool({ name: 'echo', arguments: { text: 'cimd' } }))).toBe('cimd');
    expect(as.authorizations().map((a) => a.clientId)).toEqual([document]);
    expect(as.stats().registrations).toBe(0);
  });

  it('a server without registration: initialize fails with registration_unavailable, and no browser opens', async () => {
    const p = await place();
    const { as, mcp } = await servers({ dynamicRegistration: false });
    const failure = await startBridge(suite.world, options(mcp, p)).then(
      () => undefined,
      (error: unknown) =>
        error as { code?: number; message?: string; data?: { cause?: string; detail?: string } },
    );
    expect(failure?.code).toBe(-32603);
    expect(failure?.data?.cause).toBe('registration_unavailable');
    expect(failure?.message).toContain('--client-id');
    expect(failure?.data?.detail).toContain(`http://127.0.0.1:${p.port}/callback`);
    expect(readBrowserLog(p.browserLog)).toEqual([]);
    expect(as.stats().authorizationRequests).toBe(0);
  });
});
