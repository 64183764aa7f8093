/**
 * `status` (README.md, "Status") against the file store in a temporary directory and a fake
 * keychain: the text and the JSON of the stored sign-ins, the filters, the exit codes, and that
 * neither a token nor the query of the server URL is ever printed.
 */
import { describe, expect, it } from 'vitest';
import { relativeTime, runStatus, type StatusOptions } from '../../src/cli/status.js';
import { openTokenStore } from '../../src/oauth/store/openStore.js';
import {
  fakeKeyring,
  KEY_A,
  KEY_B,
  makeRecord,
  recordingLogger,
  useTokenPlace,
  type RecordingLogger,
} from '../oauth/storeTestKit.js';

const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const WORK_ID = 'mcp-bridge-vscode|work|http://127.0.0.1:5000/callback';

let dir: string;
let logger: RecordingLogger;
useTokenPlace((place) => ({ dir, logger } = place));

const options = (overrides: Partial<StatusOptions> = {}): StatusOptions => ({
  tokenStore: 'file',
  json: false,
  logLevel: 'info',
  bridgeName: 'mcp-bridge-vscode',
  ...overrides,
});

async function seed(): Promise<void> {
  const opened = await openTokenStore(
    { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
    recordingLogger(),
  );
  if (!opened.ok) throw new Error(opened.message);
  await opened.store.write(
    makeRecord({ expiresAt: NOW + 42 * 60_000 + 5_000, savedAt: Date.parse('2026-03-01T11:00:00.000Z') }),
  );
  await opened.store.write(
    makeRecord({
      identity: WORK_ID,
      expiresAt: NOW - 1,
      scope: 'mcp:read mcp:write',
      savedAt: Date.parse('2026-02-28T09:30:00.000Z'),
    }),
  );
  const { refreshToken: _r, expiresAt: _e, scope: _s, ...bare } = makeRecord();
  await opened.store.write({
    ...bare,
    url: 'https://other.example.test/mcp',
    grant: 'client-credentials',
    savedAt: NOW - 60_000,
  });
}

async function status(overrides: Partial<StatusOptions> = {}, key = KEY_A) {
  let out = '';
  const code = await runStatus(
    options(overrides),
    logger,
    { env: { MCP_BRIDGE_TOKEN_KEY: key }, directory: dir },
    { write: (text) => void (out += text), now: () => NOW },
  );
  return { code, out };
}

const SECRETS = ['access-token-9f3b2c', 'refresh-token-7e41aa', 'url-secret-31d7', 'api_key'];

describe('status', () => {
  it('prints every stored sign-in as text: origin and path of the URL, never a token or the query', async () => {
    await seed();
    const { code, out } = await status();
    expect(code).toBe(0);
    expect(out).toBe(
      [
        'https://mcp.example.test/mcp',
        '  account:       default',
        '  store:         file',
        '  issuer:        https://as.example.test',
        '  scopes:        mcp',
        '  access token:  expires 2026-03-01T12:42:05.000Z (in 42 min)',
        '  refreshable:   yes',
        '  last refresh:  2026-03-01T11:00:00.000Z',
        '  client:        dynamic',
        '  grant:         authorization-code',
        '  redirect URI:  http://127.0.0.1:41894/callback',
        '',
        'https://mcp.example.test/mcp',
        '  account:       work',
        '  store:         file',
        '  issuer:        https://as.example.test',
        '  scopes:        mcp:read mcp:write',
        '  access token:  expires 2026-03-01T11:59:59.999Z (expired)',
        '  refreshable:   yes',
        '  last refresh:  2026-02-28T09:30:00.000Z',
        '  client:        dynamic',
        '  grant:         authorization-code',
        '  redirect URI:  http://127.0.0.1:5000/callback',
        '',
        'https://other.example.test/mcp',
        '  account:       default',
        '  store:         file',
        '  issuer:        https://as.example.test',
        '  scopes:        (none stored)',
        '  access token:  expires no lifetime given',
        '  refreshable:   no',
        '  last refresh:  2026-03-01T11:59:00.000Z',
        '  client:        dynamic',
        '  grant:         client-credentials',
        '  redirect URI:  http://127.0.0.1:41894/callback',
        '',
      ].join('\n'),
    );
    for (const secret of SECRETS) expect(out).not.toContain(secret);
    expect(logger.lines).toEqual([]);
  });

  it('prints the issuer and the granted scope of an authorization server without their control characters, as text and as JSON', async () => {
    const opened = await openTokenStore(
      { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
      recordingLogger(),
    );
    if (!opened.ok) throw new Error(opened.message);
    await opened.store.write(
      makeRecord({
        issuer: 'https://as.example.test\x1b]0;owned\x07',
        scope: 'mcp:read\x1b[2J\x9b31m mcp:write\r\nfake: line',
        savedAt: NOW,
      }),
    );
    const text = (await status()).out;
    expect(text).toContain('  issuer:        https://as.example.test\uFFFD]0;owned\uFFFD\n');
    expect(text).toContain('  scopes:        mcp:read\uFFFD[2J\uFFFD31m mcp:write fake: line\n');
    const json = JSON.parse((await status({ json: true })).out) as { issuer: string; scopes: string[] }[];
    expect(json.map(({ issuer, scopes }) => ({ issuer, scopes }))).toEqual([
      {
        issuer: 'https://as.example.test\uFFFD]0;owned\uFFFD',
        scopes: ['mcp:read\uFFFD[2J\uFFFD31m', 'mcp:write', 'fake:', 'line'],
      },
    ]);
  });

  it('names the grant of a device-code sign-in, as text and as JSON (docs/sign-in.md#sign-in-device-code)', async () => {
    const opened = await openTokenStore(
      { tokenStore: 'file', env: { MCP_BRIDGE_TOKEN_KEY: KEY_A }, service: 's', directory: dir },
      recordingLogger(),
    );
    if (!opened.ok) throw new Error(opened.message);
    await opened.store.write(makeRecord({ grant: 'device-code', savedAt: NOW }));
    const text = (await status()).out;
    expect(text).toContain(
      '  client:        dynamic\n  grant:         device-code\n  redirect URI:  http://127.0.0.1:41894/callback',
    );
    const json = JSON.parse((await status({ json: true })).out) as { grant?: string }[];
    expect(json.map(({ grant }) => grant)).toEqual(['device-code']);
  });

  it('--json prints an array with the stable field names', async () => {
    await seed();
    const { code, out } = await status({ json: true, account: 'work' });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([
      {
        kind: 'sign-in',
        server: 'https://mcp.example.test/mcp',
        account: 'work',
        store: 'file',
        issuer: 'https://as.example.test',
        scopes: ['mcp:read', 'mcp:write'],
        accessTokenExpiresAt: '2026-03-01T11:59:59.999Z',
        accessTokenExpired: true,
        refreshable: true,
        lastRefreshAt: '2026-02-28T09:30:00.000Z',
        client: 'dynamic',
        grant: 'authorization-code',
        redirectUri: 'http://127.0.0.1:5000/callback',
        idpIssuer: null,
      },
    ]);
    for (const secret of SECRETS) expect(out).not.toContain(secret);
  });

  it('a URL keeps the sign-ins of that URL only', async () => {
    await seed();
    const { code, out } = await status({ url: 'https://other.example.test/mcp', json: true });
    expect(code).toBe(0);
    expect((JSON.parse(out) as Array<{ server: string }>).map((entry) => entry.server)).toEqual([
      'https://other.example.test/mcp',
    ]);
  });

  it('exits 1 when nothing matches: [] for --json, a line on stderr', async () => {
    await seed();
    expect(await status({ json: true, account: 'nobody' })).toEqual({ code: 1, out: '[]\n' });
    expect(await status({ url: 'https://none.example.test/mcp' })).toEqual({ code: 1, out: '' });
    expect(logger.lines).toEqual([
      'vscode: info: status found no stored sign-in of the account "nobody"',
      'vscode: info: status found no stored sign-in for the URL',
    ]);
  });

  it('the memory store has nothing to list: exit 1', async () => {
    expect(await status({ tokenStore: 'memory' })).toEqual({ code: 1, out: '' });
    expect(logger.lines[0]).toBe(
      'vscode: info: the memory store keeps no sign-in after the end of the process: status has nothing to list',
    );
  });

  it('a forced file store with a wrong key exits 2', async () => {
    await seed();
    expect(await status({}, KEY_B)).toEqual({ code: 2, out: '' });
    expect(logger.lines).toEqual([
      `vscode: err: the token store did not open: the token key does not open the files in ${dir}: they were written with another key (nothing was deleted)`,
    ]);
  });

  it('lists the keychain too, which it can enumerate', async () => {
    const keyring = fakeKeyring();
    const opened = await openTokenStore(
      {
        tokenStore: 'keychain',
        env: {},
        service: 'mcp-bridge-sdk/mcp-bridge-vscode',
        directory: dir,
        loadKeyring: keyring.module,
      },
      recordingLogger(),
    );
    if (!opened.ok) throw new Error(opened.message);
    await opened.store.write(makeRecord());
    let out = '';
    const code = await runStatus(
      options({ tokenStore: 'auto', json: true }),
      logger,
      { env: {}, directory: dir, loadKeyring: keyring.module },
      { write: (text) => void (out += text), now: () => NOW },
    );
    expect(code).toBe(0);
    expect((JSON.parse(out) as Array<{ store: string }>).map((entry) => entry.store)).toEqual(['keychain']);
  });
});

describe('relativeTime', () => {
  it.each([
    [NOW - 1, 'expired'],
    [NOW, 'expired'],
    [NOW + 30_000, 'in less than a minute'],
    [NOW + 42 * 60_000, 'in 42 min'],
    [NOW + 119 * 60_000, 'in 119 min'],
    [NOW + 5 * 3_600_000, 'in 5 h'],
    [NOW + 3 * 86_400_000, 'in 3 days'],
  ])('%d -> %s', (at, text) => {
    expect(relativeTime(at, NOW)).toBe(text);
  });
});
