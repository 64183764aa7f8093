/**
 * The set-up and clean-up every end-to-end sign-in test file shares (test/oauth/e2e*.test.ts):
 * one world (certificates, folders) per file; after each test, the bridges closed, the servers
 * closed in the reverse order of their start, and the secret scan of each bridge's output for
 * every secret its authorization server issued, the codes of its browser sessions and `extra`.
 *
 *   const suite = e2eSuite({ requireMarkers: true });
 *   const run = await startBridge(suite.world, { … });
 *   suite.runs.push({ run, as });
 */
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { AuthServer } from '../fixtures/oauth/authServer.js';
import type { ProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import { makeWorld, startBridge } from './e2eSupport.js';
import type { BridgeRun, E2eWorld, RunOptions, RunPlace } from './e2eSupport.js';

export interface E2eSuite {
  readonly world: E2eWorld;
  readonly closers: Array<() => Promise<void>>;
  readonly runs: Array<{ run: BridgeRun; as: Pick<AuthServer, 'issuedSecrets'>; extra?: readonly string[] }>;
}

export function e2eSuite(options: { readonly requireMarkers?: boolean } = {}): E2eSuite {
  let world: E2eWorld | undefined;
  const closers: E2eSuite['closers'] = [];
  const runs: E2eSuite['runs'] = [];
  beforeAll(() => {
    world = makeWorld();
  });
  afterEach(async () => {
    for (const { run } of runs) await run.close();
    for (const close of closers.splice(0).reverse()) await close();
    // The scan comes last: the codes of the browser sessions are known once they ended.
    for (const { run, as, extra } of runs.splice(0)) {
      const codes = (await Promise.all(run.elicited.map((e) => e.done)))
        .map((callback) => callback?.searchParams.get('code'))
        .filter((code): code is string => typeof code === 'string');
      const markers = [...as.issuedSecrets(), ...codes, ...(extra ?? [])];
      if (options.requireMarkers === true) expect(markers.length).toBeGreaterThan(0);
      run.scan(markers);
    }
  });
  afterAll(() => world?.remove());
  return {
    get world(): E2eWorld {
      if (world === undefined) throw new Error('the world is made in beforeAll');
      return world;
    },
    closers,
    runs,
  };
}

/**
 * The built bridge in front of `mcp` with the encrypted file store of the place `p`; the run ends
 * with the test and its output is scanned for the secrets of `as`.
 */
export async function startFileStoreBridge(
  suite: E2eSuite,
  as: Pick<AuthServer, 'issuedSecrets'>,
  mcp: ProtectedMcp,
  p: RunPlace,
  options: Partial<RunOptions> = {},
): Promise<BridgeRun> {
  const run = await startBridge(suite.world, {
    url: mcp.url,
    redirectPort: p.port,
    store: 'file',
    stateDir: p.stateDir,
    browserLog: p.browserLog,
    ...options,
  });
  suite.runs.push({ run, as });
  return run;
}
