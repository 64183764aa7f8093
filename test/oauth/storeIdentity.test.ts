/** The storage identity and the account label (docs/sign-in.md#sign-in-stores, docs/cli.md#cli-forms). */
import { describe, expect, it } from 'vitest';
import { checkAccountLabel, storageIdentity } from '../../src/oauth/store/identity.js';
import { lockDirectory, stateDirectory, tokenDirectory } from '../../src/oauth/store/paths.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';

const VSCODE_TOKENS = vscodeProfile.identity.tokenDirectory;

const base = {
  bridgeName: 'mcp-bridge-vscode',
  account: 'default',
  redirectUri: 'http://127.0.0.1:41894/callback',
};

describe('storageIdentity', () => {
  it('is bridge name, account and redirect URI', () => {
    expect(storageIdentity(base)).toBe('mcp-bridge-vscode|default|http://127.0.0.1:41894/callback');
  });
  it('adds the client ID of a pre-registered client', () => {
    expect(storageIdentity({ ...base, clientId: 'abc' })).toBe(
      'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback|client=abc',
    );
  });
  it('adds an explicit client metadata document', () => {
    expect(storageIdentity({ ...base, account: 'work', metadataUrl: 'https://x.example/c.json' })).toBe(
      'mcp-bridge-vscode|work|http://127.0.0.1:41894/callback|cimd=https://x.example/c.json',
    );
  });
});

describe('checkAccountLabel', () => {
  it('accepts 1 to 64 characters of A-Z a-z 0-9 . _ @ + -', () => {
    for (const label of ['a', 'default', 'me@example.com', 'A.b_c+d-9', 'x'.repeat(64)])
      expect(checkAccountLabel(label)).toEqual({ ok: true });
  });
  it('refuses empty, too long, and other characters, without repeating the label', () => {
    const refused = ['', 'x'.repeat(65), 'a|b', 'a b', 'ü', 'a/b', 'a\n'];
    for (const label of refused)
      expect(checkAccountLabel(label)).toEqual({
        ok: false,
        hint: 'an account label has 1 to 64 characters of A-Z a-z 0-9 . _ @ + -',
      });
    expect(refused).toHaveLength(7);
  });
});

describe('platform directories', () => {
  it('Windows: %LOCALAPPDATA%\\mcp-bridge-sdk\\vscode\\tokens', () => {
    expect(tokenDirectory({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32', VSCODE_TOKENS)).toBe(
      'C:\\Users\\u\\AppData\\Local\\mcp-bridge-sdk\\vscode\\tokens',
    );
  });
  it('elsewhere: $XDG_STATE_HOME, else ~/.local/state', () => {
    expect(tokenDirectory({ XDG_STATE_HOME: '/s', HOME: '/home/u' }, 'linux', VSCODE_TOKENS)).toBe(
      '/s/mcp-bridge-sdk/vscode/tokens',
    );
    expect(tokenDirectory({ HOME: '/home/u' }, 'darwin', VSCODE_TOKENS)).toBe(
      '/home/u/.local/state/mcp-bridge-sdk/vscode/tokens',
    );
    expect(stateDirectory({ XDG_STATE_HOME: 'relative', HOME: '/home/u' }, 'linux', VSCODE_TOKENS)).toBe(
      '/home/u/.local/state/mcp-bridge-sdk/vscode',
    );
  });
  it('the locks of the keychain and memory stores go to <state>/locks', () => {
    expect(lockDirectory({ HOME: '/home/u' }, 'linux', VSCODE_TOKENS)).toBe(
      '/home/u/.local/state/mcp-bridge-sdk/vscode/locks',
    );
  });
});
