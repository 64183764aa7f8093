/**
 * The sign-in identity comes from the executable's profile (docs/architecture.md#architecture-profile, docs/sign-in.md#sign-in-registration, docs/sign-in.md#sign-in-stores): the settings of the token store and of the sign-in,
 * the keychain service and token directory of logout, and the registration with each profile's
 * document. Every expectation is a literal value; the VS Code ones are those of the published
 * `site/vscode/client.json` and of the stores before profiles existed, the generic ones those of
 * `site/generic/client.json`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServerMetadata } from 'openid-client';
import { parseCommandLine } from '../../src/cli/args.js';
import { logoutEnvironment, runLogout } from '../../src/cli/logout.js';
import { signInSettings } from '../../src/cli/signInSetup.js';
import { chooseRegistration } from '../../src/oauth/registration.js';
import { openTokenStore } from '../../src/oauth/store/openStore.js';
import { genericProfile } from '../../src/profiles/generic.js';
import type { Profile } from '../../src/profiles/profile.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';
import { fakeKeyring, makeRecord, recordingLogger, SERVER_URL, tempDir } from '../oauth/storeTestKit.js';

const URL = 'https://mcp.example.com/mcp';
const KEY = 'ab'.repeat(32);

function settingsOf(profile: Profile) {
  const parsed = parseCommandLine([URL], {}, '1.0.0', profile);
  if (parsed.kind !== 'serve' || parsed.options.signIn === undefined) expect.fail('expected a sign-in');
  return signInSettings({ url: URL, signIn: parsed.options.signIn, env: {}, profile });
}

describe('the sign-in settings of a profile', () => {
  it('mcp-bridge signs in as itself: its own name, keychain, token directory, port and document', () => {
    const { store, auth } = settingsOf(genericProfile);
    expect(store).toEqual({
      tokenStore: 'auto',
      env: {},
      service: 'mcp-bridge-sdk/mcp-bridge',
      tokenDirectory: 'mcp-bridge-sdk/generic/tokens',
    });
    expect(auth).toMatchObject({
      url: URL,
      bridgeName: 'mcp-bridge',
      clientName: 'mcp-bridge (mcp-bridge-sdk)',
      redirectPort: 41895,
      account: 'default',
      defaultMetadataUrl: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/generic/client.json',
      defaultMetadataPort: 41895,
      browserWithoutUrlElicitation: true,
    });
  });

  it('mcp-bridge-vscode keeps its identity', () => {
    const { store, auth } = settingsOf(vscodeProfile);
    expect(store).toEqual({
      tokenStore: 'auto',
      env: {},
      service: 'mcp-bridge-sdk/mcp-bridge-vscode',
      tokenDirectory: 'mcp-bridge-sdk/vscode/tokens',
    });
    expect(auth).toMatchObject({
      bridgeName: 'mcp-bridge-vscode',
      clientName: 'mcp-bridge-vscode (mcp-bridge-sdk)',
      redirectPort: 41894,
      defaultMetadataUrl: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
      defaultMetadataPort: 41894,
      browserWithoutUrlElicitation: false,
    });
  });
});

describe('the token places of a profile', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir: root, cleanup } = await tempDir());
  });
  afterEach(() => cleanup());

  it('the file store of mcp-bridge lives in mcp-bridge-sdk/generic/tokens', async () => {
    const opened = await openTokenStore(
      {
        ...settingsOf(genericProfile).store,
        tokenStore: 'file',
        env: { XDG_STATE_HOME: root, MCP_BRIDGE_TOKEN_KEY: KEY },
        platform: 'linux',
      },
      recordingLogger(),
    );
    if (!opened.ok) expect.fail(opened.message);
    expect(opened.store.description).toBe(
      `the tokens are in encrypted files in ${path.join(root, 'mcp-bridge-sdk', 'generic', 'tokens')}`,
    );
  });

  it('logout --all of mcp-bridge deletes its token directory, not that of mcp-bridge-vscode', async () => {
    const generic = path.join(root, 'mcp-bridge-sdk', 'generic', 'tokens');
    const vscode = path.join(root, 'mcp-bridge-sdk', 'vscode', 'tokens');
    await mkdir(vscode, { recursive: true });
    await writeFile(path.join(vscode, 'keep.token'), 'x');
    await mkdir(generic, { recursive: true });
    const parsed = parseCommandLine(
      ['logout', '--token-store', 'file', '--all'],
      { MCP_BRIDGE_TOKEN_KEY: KEY },
      '1.0.0',
      genericProfile,
    );
    if (parsed.kind !== 'logout') expect.fail(`expected logout, got ${parsed.kind}`);
    const logger = recordingLogger();
    const code = await runLogout(parsed.options, logger, {
      ...logoutEnvironment(genericProfile),
      env: { XDG_STATE_HOME: root, MCP_BRIDGE_TOKEN_KEY: KEY },
      platform: 'linux',
    });
    expect(code).toBe(0);
    expect(logger.lines).toContain(`bridge: info: deleted the token directory ${generic}`);
    expect(existsSync(generic)).toBe(false);
    expect(existsSync(path.join(vscode, 'keep.token'))).toBe(true);
  });

  it('logout of mcp-bridge deletes in its own keychain service only', async () => {
    const keyring = fakeKeyring();
    const seed = async (service: string, bridgeName: string) => {
      const opened = await openTokenStore(
        { tokenStore: 'keychain', env: {}, service, directory: root, loadKeyring: keyring.module },
        recordingLogger(),
      );
      if (!opened.ok) expect.fail(opened.message);
      await opened.store.write(
        makeRecord({ identity: `${bridgeName}|default|http://127.0.0.1:41895/callback` }),
      );
    };
    await seed('mcp-bridge-sdk/mcp-bridge', 'mcp-bridge');
    await seed('mcp-bridge-sdk/mcp-bridge-vscode', 'mcp-bridge');
    // Per keychain service: the record and the index of stored sign-ins.
    const count = (service: string) =>
      [...keyring.secrets.keys()].filter((name) => name.startsWith(`${service}/`)).length;
    expect([count('mcp-bridge-sdk/mcp-bridge'), count('mcp-bridge-sdk/mcp-bridge-vscode')]).toEqual([2, 2]);
    const parsed = parseCommandLine(
      // --no-revoke: this test is about where the record is; it contacts no server.
      ['logout', '--no-revoke', '--token-store', 'keychain', SERVER_URL],
      {},
      '1.0.0',
      genericProfile,
    );
    if (parsed.kind !== 'logout') expect.fail(`expected logout, got ${parsed.kind}`);
    const logger = recordingLogger();
    const code = await runLogout(parsed.options, logger, {
      ...logoutEnvironment(genericProfile),
      env: {},
      directory: root,
      loadKeyring: keyring.module,
    });
    expect(code).toBe(0);
    expect(logger.lines).toEqual([
      'bridge: info: logout deleted the stored sign-in of the account "default". The next start signs in again',
    ]);
    // The record of the same identity under the service of mcp-bridge-vscode is untouched.
    expect([count('mcp-bridge-sdk/mcp-bridge'), count('mcp-bridge-sdk/mcp-bridge-vscode')]).toEqual([1, 2]);
  });
});

describe('registration with the client metadata document of a profile', () => {
  const as: ServerMetadata = {
    issuer: 'https://as.example',
    authorization_endpoint: 'https://as.example/auth',
    token_endpoint: 'https://as.example/token',
    registration_endpoint: 'https://as.example/register',
    client_id_metadata_document_supported: true,
  };

  it('mcp-bridge uses its own document at its default port', () => {
    const lines: string[] = [];
    const choice = chooseRegistration({
      config: settingsOf(genericProfile).auth,
      as,
      stored: undefined,
      redirectUri: 'http://127.0.0.1:41895/callback',
      logger: { log: (_scope, _level, text) => void lines.push(text), enabled: () => true },
    });
    expect(choice).toEqual({
      kind: 'ready',
      registration: {
        clientId: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/generic/client.json',
        source: 'metadata-document',
        authMethod: 'none',
      },
    });
    expect(lines).toEqual([]);
  });

  it('mcp-bridge-vscode uses its document at its default port', () => {
    const choice = chooseRegistration({
      config: settingsOf(vscodeProfile).auth,
      as,
      stored: undefined,
      redirectUri: 'http://127.0.0.1:41894/callback',
      logger: { log: () => undefined, enabled: () => true },
    });
    expect(choice).toEqual({
      kind: 'ready',
      registration: {
        clientId: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
        source: 'metadata-document',
        authMethod: 'none',
      },
    });
  });
});
