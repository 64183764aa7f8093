/**
 * A sign-in stopped while the client registration (`prepare`) is still pending writes no sign-in
 * line and opens no browser (src/oauth/interactive.ts; docs/sign-in.md#sign-in-sandbox): `prepare`
 * does not watch the signal, so the sign-in checks it once `prepare` is done.
 */
import { describe, expect, it } from 'vitest';
import { configuration } from '../../src/oauth/flow.js';
import { signInInteractively } from '../../src/oauth/interactive.js';
import type { InteractiveDeps, InteractiveSettings } from '../../src/oauth/interactive.js';
import { startReceiver } from '../../src/oauth/receiver.js';

const MCP = 'https://mcp.example/mcp';
const AS = {
  issuer: 'https://as.example',
  authorization_endpoint: 'https://as.example/authorize',
  token_endpoint: 'https://as.example/token',
  code_challenge_methods_supported: ['S256'],
};
const settings: InteractiveSettings = {
  redirectPort: 0,
  noBrowser: false,
  signInTimeoutMs: 20_000,
  sandbox: false,
  secretVariables: [],
};

function recordingDeps(): { deps: InteractiveDeps; lines: string[]; opened: string[]; logs: string[] } {
  const lines: string[] = [];
  const opened: string[] = [];
  const logs: string[] = [];
  const deps: InteractiveDeps = {
    logger: { log: (_scope, level, text) => void logs.push(`${level}: ${text}`), enabled: () => true },
    env: {},
    consent: {
      phase: () => 'initializing',
      clientSupportsUrl: () => true,
      askUrl: () => Promise.resolve('accept'),
      complete: () => undefined,
    },
    now: () => 0,
    startReceiver,
    openBrowser: (url) => {
      opened.push(url);
      return Promise.resolve(true);
    },
    writeSignInLine: (line) => void lines.push(line),
  };
  return { deps, lines, opened, logs };
}

describe('a sign-in stopped during the client registration', () => {
  it('writes no sign-in line and opens no browser', async () => {
    const { deps, lines, opened, logs } = recordingDeps();
    const stop = new AbortController();
    let release: () => void = () => undefined;
    const registered = new Promise<void>((resolve) => (release = resolve));
    let prepared = 0;
    let entered: () => void = () => undefined;
    const preparing = new Promise<void>((resolve) => (entered = resolve));
    const signIn = signInInteractively(
      settings,
      deps,
      { cooldownUntil: 0, elicitations: 0 },
      {
        // The registration endpoint answers only when the test releases it.
        prepare: async () => {
          prepared += 1;
          entered();
          await registered;
          return configuration(
            AS,
            { clientId: 'c', source: 'dynamic', authMethod: 'none' },
            undefined,
            fetch,
            MCP,
          );
        },
        mcpUrl: MCP,
        resource: MCP,
        scope: undefined,
        signal: stop.signal,
      },
    );
    const outcome = signIn.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await preparing;
    expect(prepared).toBe(1);
    stop.abort(new Error('the client cancelled the request'));
    release();
    await expect(outcome).resolves.toMatchObject({
      code: 'sign_in_failed',
      detail: 'the request stopped before the sign-in completed',
    });
    expect(lines).toEqual([]);
    expect(opened).toEqual([]);
    expect(logs).toEqual(['warn: The request stopped before the sign-in completed.']);
  });
});
