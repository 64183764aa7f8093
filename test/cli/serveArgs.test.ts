/**
 * The command line of `serve` (docs/cli.md#cli-serve): its forms, its own options and the token
 * that a listen address other than loopback needs.
 */
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/args.js';
import { genericProfile } from '../../src/profiles/generic.js';

const parse = (argv: string[], env: Record<string, string> = {}) =>
  parseCommandLine(argv, env, '1.0.0', genericProfile);

describe('serve', () => {
  it('takes the command form with 127.0.0.1 and a free port by default', () => {
    const parsed = parse(['serve', '--', 'node', 'server.js']);
    expect(parsed.kind).toBe('serve-http');
    if (parsed.kind !== 'serve-http') return;
    expect(parsed.options.upstream).toEqual({ kind: 'command', argv: ['node', 'server.js'] });
    expect(parsed.http).toEqual({ host: '127.0.0.1', port: 0, allowOrigins: [] });
  });

  it('takes the URL form and the options of serve', () => {
    const parsed = parse([
      'serve',
      '--listen',
      '[::1]:8808',
      '--allow-origin',
      'https://vscode.dev',
      '--max-sessions',
      '5',
      '--max-requests',
      '50',
      '--max-session-requests',
      '7',
      '--max-body-bytes',
      '1000',
      '--session-idle',
      '60',
      '--body-timeout',
      '2500',
      '--max-connections',
      '40',
      '--max-session-buffer-bytes',
      '65536',
      '--metrics',
      'https://mcp.example.com/mcp',
    ]);
    expect(parsed.kind).toBe('serve-http');
    if (parsed.kind !== 'serve-http') return;
    expect(parsed.options.upstream).toEqual({ kind: 'url', url: 'https://mcp.example.com/mcp' });
    expect(parsed.http).toEqual({
      host: '::1',
      port: 8808,
      allowOrigins: ['https://vscode.dev'],
      maxSessions: 5,
      maxPending: 50,
      maxInFlight: 7,
      maxBodyBytes: 1000,
      sessionIdleMs: 60_000,
      bodyTimeoutMs: 2500,
      maxConnections: 40,
      maxSessionBufferBytes: 65_536,
      metrics: true,
    });
  });

  it('takes --metrics only with serve', () => {
    expect(parse(['--metrics', '--', 'node'])).toEqual({
      kind: 'error',
      message: 'the option --metrics is only for the serve command',
    });
  });

  it('refuses the options of serve without the word serve', () => {
    expect(parse(['--listen', '127.0.0.1:1', '--', 'node'])).toEqual({
      kind: 'error',
      message: 'the option --listen is only for the serve command',
    });
  });

  it('refuses a listen address other than loopback without a token, and takes it with MCP_BRIDGE_SERVE_TOKEN', () => {
    expect(parse(['serve', '--listen', '0.0.0.0:8808', '--', 'node'])).toEqual({
      kind: 'error',
      message:
        'a listen address other than loopback needs a token: give --auth-token-file, or set MCP_BRIDGE_SERVE_TOKEN',
    });
    const parsed = parse(['serve', '--listen', '0.0.0.0:8808', '--', 'node'], {
      MCP_BRIDGE_SERVE_TOKEN: '0123456789abcdef0123456789abcdef',
    });
    expect(parsed.kind === 'serve-http' ? parsed.http.token : undefined).toBe(
      '0123456789abcdef0123456789abcdef',
    );
  });

  it('takes a token file of the user, closed to others, of one line with at least 32 token characters; refuses the rest without echoing the token', () => {
    const dir = mkdtempSync(join(tmpdir(), 'serve-token-'));
    const TOKEN = 'Zk3q9Vw2Lx7Tn4Rb8Hc1Md6Py5Sa0Ue2';
    const tokenFile = (name: string, text: string, mode = 0o600): string => {
      const file = join(dir, name);
      writeFileSync(file, text);
      chmodSync(file, mode);
      return file;
    };
    const outcome = (file: string): unknown => {
      const parsed = parse(['serve', '--auth-token-file', file, '--', 'node']);
      return parsed.kind === 'serve-http' ? parsed.http.token : parsed;
    };
    expect(outcome(tokenFile('ok', `${TOKEN}\n`))).toBe(TOKEN);
    expect(outcome(tokenFile('crlf', `${TOKEN}\r\n`))).toBe(TOKEN);
    expect(outcome(tokenFile('open', `${TOKEN}\n`, 0o644))).toEqual({
      kind: 'error',
      message: 'the value of --auth-token-file is not valid: other users may read or write it (chmod 600 it)',
    });
    expect(outcome(tokenFile('two', `${TOKEN}\n${TOKEN}\n`))).toEqual({
      kind: 'error',
      message: 'the file of --auth-token-file has more than one line',
    });
    expect(outcome(tokenFile('short', 'abc\n'))).toEqual({
      kind: 'error',
      message:
        'the token of --auth-token-file is not valid: it has 3 characters; at least 32 are needed (128 bits as hex)',
    });
    expect(parse(['serve', '--', 'node'], { MCP_BRIDGE_SERVE_TOKEN: 'tok' })).toEqual({
      kind: 'error',
      message:
        'the token of MCP_BRIDGE_SERVE_TOKEN is not valid: it has 3 characters; at least 32 are needed (128 bits as hex)',
    });
  });

  it('refuses a bad listen address and a bad origin without echoing them', () => {
    expect(parse(['serve', '--listen', '127.0.0.1:99999', '--', 'node'])).toEqual({
      kind: 'error',
      message: 'the value of --listen is not valid: give <address>:<port>, such as 127.0.0.1:8808',
    });
    expect(parse(['serve', '--allow-origin', 'https://a.example/path', '--', 'node'])).toEqual({
      kind: 'error',
      message: 'the value of --allow-origin is not valid: give an origin such as https://vscode.dev',
    });
  });
});
