import { describe, expect, it } from 'vitest';
import { helpText, usageText } from '../../src/cli/help.js';
import { genericProfile } from '../../src/profiles/generic.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';
import { OPTIONS } from '../../src/cli/scan.js';

/** The options of src/cli/sharedSwitch.ts, which the bridge's parse never sees. */
const SHARED_OPTIONS = ['--shared', '--shared-grace', '--shared-idle'];
const HELP_TEXT = helpText(vscodeProfile);
const USAGE_TEXT = usageText(vscodeProfile);

describe('--help text (docs/cli.md#cli-forms)', () => {
  it('starts with "Usage: mcp-bridge-vscode " and lists both forms', () => {
    expect(HELP_TEXT.startsWith('Usage: mcp-bridge-vscode ')).toBe(true);
    expect(HELP_TEXT).toContain('mcp-bridge-vscode [options] -- <command> [args...]');
    expect(HELP_TEXT).toContain('mcp-bridge-vscode [options] <url>');
  });

  it.each(Object.keys(OPTIONS))('lists --%s', (name) => {
    expect(HELP_TEXT).toMatch(new RegExp(`^  --${name}\\b`, 'm'));
  });

  it('states every default', () => {
    expect(HELP_TEXT).toContain('(default: info)');
    expect(HELP_TEXT).toContain('(default: 60)');
    expect(HELP_TEXT.match(/\(default: 67108864\)/g)).toHaveLength(2);
    expect(HELP_TEXT.match(/default: none/g)).toHaveLength(10);
    expect(HELP_TEXT).toContain('(default: 41894)');
    expect(HELP_TEXT).toContain('(default: default)');
    expect(HELP_TEXT).toContain('(default: auto)');
    expect(HELP_TEXT).toContain('(default: 300)');
  });

  it('lists the environment variables', () => {
    for (const name of [
      'HTTPS_PROXY',
      'https_proxy',
      'ALL_PROXY',
      'all_proxy',
      'NO_PROXY',
      '<VAR> of --header-env',
    ]) {
      expect(HELP_TEXT).toContain(name);
    }
  });

  it('lists the exit codes 0, 1 and 2', () => {
    expect(HELP_TEXT).toMatch(
      /^ {2}0 {2}stdin ended, or --help or --version; logout deleted, or found nothing to delete;$/m,
    );
    expect(HELP_TEXT).toMatch(/^ {5}status listed at least one sign-in$/m);
    expect(HELP_TEXT).toMatch(
      /^ {2}1 {2}the upstream command stopped, or an internal error; logout failed to delete; status$/m,
    );
    expect(HELP_TEXT).toMatch(/^ {5}found no sign-in$/m);
    expect(HELP_TEXT).toMatch(
      /^ {2}2 {2}invalid arguments, a missing --header-env variable, an unusable --ca-file, or a token$/m,
    );
    expect(HELP_TEXT).toMatch(/^ {5}store that does not open$/m);
  });

  it('lists the exit codes 130 and 143 of a repeated signal', () => {
    expect(HELP_TEXT).toMatch(
      /^ {2}130 {2}a SIGINT, 143 a SIGTERM, that comes while the bridge stops after an earlier one \(a$/m,
    );
    expect(HELP_TEXT).toMatch(
      /^ {5}first SIGINT or SIGTERM stops it with 0\); the upstream's process group is killed at once$/m,
    );
  });

  it('shows the logout and status forms in the help and in the usage lines', () => {
    for (const text of [HELP_TEXT, USAGE_TEXT]) {
      expect(text).toContain('mcp-bridge-vscode logout [options] <url>');
      expect(text).toContain('mcp-bridge-vscode logout [options] --all');
      expect(text).toContain('mcp-bridge-vscode status [options] [<url>]');
    }
  });

  it('says that status never prints a token or the query of the URL', () => {
    expect(HELP_TEXT).toContain(
      'never a token, and of the server URL only\nits origin and path, never its query',
    );
  });

  it('lists the environment variables of the sign-in', () => {
    for (const name of [
      'MCP_BRIDGE_CLIENT_SECRET',
      'MCP_BRIDGE_IDP_CLIENT_SECRET',
      'MCP_BRIDGE_TOKEN_KEY',
      'SANDBOX_RUNTIME',
      'BROWSER',
    ]) {
      expect(HELP_TEXT).toMatch(new RegExp(`^  ${name} `, 'm'));
    }
  });

  it('mentions no option that does not exist', () => {
    const mentioned = new Set(HELP_TEXT.match(/--[a-z][a-z-]*/g));
    expect(
      // --print: of `add`, whose own options are in its own help (src/cli/add/addHelp.ts). The
      // shared options are taken out before the parse (src/cli/sharedSwitch.ts, docs/shared.md).
      [...mentioned].filter(
        (option) =>
          option !== '--opt' &&
          option !== '--print' &&
          !SHARED_OPTIONS.includes(option) &&
          !Object.hasOwn(OPTIONS, option.slice(2)),
      ),
    ).toEqual([]);
  });

  it('lines fit in 100 columns and the text ends without a newline', () => {
    expect(HELP_TEXT.split('\n').filter((line) => line.length > 100)).toEqual([]);
    expect(HELP_TEXT.endsWith('\n')).toBe(false);
    expect(USAGE_TEXT.startsWith('Usage: mcp-bridge-vscode ')).toBe(true);
  });
});

describe('--help of the sign-in after initialized and of --client-metadata-url none', () => {
  it('mcp-bridge names the browser for a client without URL elicitation; mcp-bridge-vscode does not', () => {
    const generic = helpText(genericProfile);
    expect(generic).toContain(
      'during initialize; later through a URL question of the client, or in the browser again when\n' +
        'the client has none.',
    );
    expect(HELP_TEXT).toContain('during initialize, and later through a URL question of VS Code.');
    expect(HELP_TEXT).not.toContain('in the browser again');
    for (const text of [generic, HELP_TEXT]) {
      expect(text).toContain('another client metadata document, or none for\n');
      expect(text.split('\n').filter((line) => line.length > 100)).toEqual([]);
    }
  });
});

describe('--help of serve', () => {
  it('shows the serve forms, the listening line and the token variable', () => {
    expect(HELP_TEXT).toContain(
      'mcp-bridge-vscode serve [--listen 127.0.0.1:<port>] [options] -- <command> [args...]',
    );
    expect(USAGE_TEXT).toContain('mcp-bridge-vscode serve [--listen 127.0.0.1:<port>] [options] <url>');
    expect(HELP_TEXT).toContain('"mcp-bridge-vscode: serve: listening on <url>"');
    expect(HELP_TEXT).toContain('MCP_BRIDGE_SERVE_TOKEN');
  });
});
