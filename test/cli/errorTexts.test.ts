/**
 * The executable's error messages (src/cli/errorTexts.ts): a bridge-made error of a listed cause
 * gets the message of the executable, with its own name in `logout`; any other frame, also an
 * upstream error that names the same cause with its own message, stays as it is.
 */
import { describe, expect, it } from 'vitest';
import { executableMessages, withExecutableMessage } from '../../src/cli/errorTexts.js';
import { genericProfile } from '../../src/profiles/generic.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';
import { bridgeErrorFrame } from '../../src/protocol/errors.js';

describe('the error messages of an executable', () => {
  it('name the logout of each executable in sign_in_timeout', () => {
    const frame = bridgeErrorFrame(1, 'sign_in_timeout', '300 s');
    for (const [profile, logout] of [
      [genericProfile, 'run "mcp-bridge logout <url>"'],
      [vscodeProfile, 'run "mcp-bridge-vscode logout <url>"'],
    ] as const) {
      const shown = withExecutableMessage(frame, executableMessages(profile));
      expect(shown).toMatchObject({
        id: 1,
        error: { code: -32603, data: { cause: 'sign_in_timeout', detail: '300 s' } },
      });
      expect('error' in shown && shown.error.message).toContain(logout);
    }
  });

  it('name the sandbox of VS Code only for mcp-bridge-vscode', () => {
    const frame = bridgeErrorFrame(2, 'sandbox');
    const generic = withExecutableMessage(frame, executableMessages(genericProfile));
    const vscode = withExecutableMessage(frame, executableMessages(vscodeProfile));
    expect('error' in generic && generic.error.message).toBe(
      'The upstream server needs a sign-in, but the bridge runs in a sandbox (SANDBOX_RUNTIME=1) that ' +
        'allows no sign-in. Sign in once outside the sandbox, or turn the sandbox off for this server.',
    );
    expect('error' in vscode && vscode.error.message).toBe(
      'The upstream server needs a sign-in, but the bridge runs in the sandbox of VS Code. Sign in once ' +
        'outside the sandbox, or turn the sandbox off for this server.',
    );
  });

  it('leave an error the bridge did not make, another cause and a result as they are', () => {
    const messages = executableMessages(genericProfile);
    const upstream = {
      jsonrpc: '2.0' as const,
      id: 3,
      error: { code: -32603, message: 'the server timed out', data: { cause: 'sign_in_timeout' } },
    };
    expect(withExecutableMessage(upstream, messages)).toBe(upstream);
    const other = bridgeErrorFrame(4, 'timeout');
    expect(withExecutableMessage(other, messages)).toBe(other);
    const result = { jsonrpc: '2.0' as const, id: 5, result: {} };
    expect(withExecutableMessage(result, messages)).toBe(result);
  });
});
