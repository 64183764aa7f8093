/**
 * One sign-in at the IdP for every server and every bridge process (docs/sign-in.md#sign-in-idp-session;
 * the built sources: `npm run build` first). Two OS processes, each for another MCP server of the
 * same IdP, ask idTokenFromSession at once with one file store and its lock: the IdP sees one
 * authorization request and one code, both get the same ID token, and no token reaches their
 * output or the token directory in clear.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHandIdp } from '../../fixtures/oauth/handIdp.js';
import type { HandIdp } from '../../fixtures/oauth/handIdp.js';
import { expectNoSecrets, markerForms } from '../../helpers/secretScan.js';
import { KEY_A, tempDir } from '../storeTestKit.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const dist = (file: string): string => pathToFileURL(path.join(root, 'dist/src/oauth', file)).href;

// One bridge process's part of a sign-in with --grant id-jag: the ID token of the IdP session.
const CHILD = `
const { openTokenStore } = await import(${JSON.stringify(dist('store/openStore.js'))});
const { startReceiver } = await import(${JSON.stringify(dist('receiver.js'))});
const { dpopSession } = await import(${JSON.stringify(dist('dpop/index.js'))});
const { discoverIdp } = await import(${JSON.stringify(dist('idp/idpMetadata.js'))});
const { idTokenFromSession } = await import(${JSON.stringify(dist('idp/session.js'))});
const { createHash } = await import('node:crypto');
const [dir, key, issuer, mcpUrl] = process.argv.slice(1);
const logger = { enabled: () => true, log: (scope, level, text) => process.stderr.write(scope + ': ' + level + ': ' + text + '\\n') };
const opened = await openTokenStore({ tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: key }, service: 's', directory: dir }, logger);
if (!opened.ok) throw new Error(opened.message);
const follow = async (url) => {
  const answer = await fetch(url, { redirect: 'manual' });
  await fetch(answer.headers.get('location'), { redirect: 'manual' }).then((r) => r.arrayBuffer());
};
const config = { url: mcpUrl, bridgeName: 'mcp-bridge-vscode', clientName: 'c', redirectPort: 0, account: 'default',
  noBrowser: true, signInTimeoutMs: 20000, sandbox: false, secretVariables: [], grant: 'id-jag' };
const ctx = {
  config, fetch: globalThis.fetch, logger, now: Date.now, settings: config,
  key: { url: mcpUrl, identity: 'mcp-bridge-vscode|default|http://127.0.0.1:0/callback|grant=id-jag' },
  interactiveDeps: { logger, env: {}, now: Date.now, startReceiver, openBrowser: async () => false,
    consent: { phase: () => 'initializing', clientSupportsUrl: () => false, askUrl: async () => 'cancel', complete: () => {} },
    writeSignInLine: (url) => { process.stderr.write('sign in at <the URL>\\n'); void follow(url); } },
  state: { cooldownUntil: 0, elicitations: 0 }, current: () => undefined,
  held: { signal: new AbortController().signal, confirm: async () => {} }, save: async () => {},
  refusedDocuments: new Set(), dpop: dpopSession(false), store: opened.store, lock: opened.lock,
};
const idp = { issuer, clientId: 'idp-client' };
const idToken = await idTokenFromSession(ctx, idp, await discoverIdp(ctx, idp));
process.stdout.write(createHash('sha256').update(idToken).digest('hex'));
`;

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, ...args], { stdio: 'pipe' });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

let dir: string;
let cleanup: () => Promise<void>;
let idp: HandIdp;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dir = path.join(dir, 'tokens');
  idp = await startHandIdp({ clientId: 'idp-client' });
});
afterEach(async () => {
  await idp.close();
  await cleanup();
});

describe('the IdP session shared by bridge processes', () => {
  it('signs in at the IdP once for two processes of two servers', async () => {
    const [a, b] = await Promise.all([
      run([dir, KEY_A, idp.issuer, 'http://127.0.0.1:9/server-a/mcp']),
      run([dir, KEY_A, idp.issuer, 'http://127.0.0.1:9/server-b/mcp']),
    ]);
    expect([a?.code, b?.code]).toEqual([0, 0]);
    expect(a?.out).toMatch(/^[0-9a-f]{64}$/);
    expect(b?.out).toBe(a?.out);
    expect(idp.stats()).toMatchObject({ authorizationRequests: 1, codeGrants: 1, refreshGrants: 0 });
    const lines = [...(a?.err ?? '').split('\n'), ...(b?.err ?? '').split('\n')];
    expect(lines.filter((line) => line === 'sign in at <the URL>')).toHaveLength(1);
    expect(lines.filter((line) => line === 'oauth: info: the sign-in at the IdP completed')).toHaveLength(1);
    // The ID token the processes got is the one the IdP issued.
    const issuedHashes = idp.issuedSecrets().map((value) => createHash('sha256').update(value).digest('hex'));
    expect(issuedHashes).toContain(a?.out);

    const secrets = idp.issuedSecrets();
    expectNoSecrets({ lines: [a?.out ?? '', b?.out ?? ''], stderr: lines }, secrets);
    for (const name of await readdir(dir)) {
      const text = (await readFile(path.join(dir, name))).toString('latin1').toLowerCase();
      for (const secret of secrets)
        for (const form of markerForms(secret))
          expect(text.includes(form.text.toLowerCase()), `${name} holds a token (${form.encoding})`).toBe(
            false,
          );
    }
  });
});
