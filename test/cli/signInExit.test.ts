/**
 * The built executable refuses sign-in command lines with exit code 2, an empty stdout and no
 * value on stderr (docs/cli.md#cli-forms, docs/cli.md#cli-exit-codes), and a forced
 * token store that does not open ends it the same way. Needs the build (`npm run build`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRIDGE, initializeRequest } from '../helpers/bridgeProcess.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import { killAllPeers, responseTo, spawnPeer } from '../helpers/rawPeer.js';
import { bridgeEnv } from '../process/httpSupport.js';

const URL = 'https://127.0.0.1:9/mcp?key=SECRET-URL';
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-signin-args-'));
});
afterAll(async () => {
  await killAllPeers();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: readonly string[], env: Record<string, string> = {}) {
  // No keychain: the Secret Service is unreachable without a session bus.
  const peer = spawnPeer(
    process.execPath,
    [BRIDGE, ...args],
    bridgeEnv({ XDG_STATE_HOME: dir, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus', ...env }),
  );
  const { code } = await peer.exit;
  await peer.stdoutClosed;
  return { code, stdout: peer.lines, stderr: peer.stderr };
}

const USAGE = [
  'Usage: mcp-bridge-vscode [options] -- <command> [args...]',
  '       mcp-bridge-vscode [options] <url>',
  '       mcp-bridge-vscode logout [options] <url>',
  '       mcp-bridge-vscode logout [options] --all',
  '       mcp-bridge-vscode logout [options] --idp <issuer>',
  '       mcp-bridge-vscode status [options] [<url>]',
  '       mcp-bridge-vscode add <client> [options] (-- <command> [args...] | <url>)',
  '       mcp-bridge-vscode doctor [options] (-- <command> [args...] | <url>)',
  '       mcp-bridge-vscode serve [--listen 127.0.0.1:<port>] [options] -- <command> [args...]',
  '       mcp-bridge-vscode serve [--listen 127.0.0.1:<port>] [options] <url>',
  'Run "mcp-bridge-vscode --help" for the options.',
];

describe.concurrent('exit code 2 for the sign-in options', () => {
  it.each([
    [
      ['--header-env', 'Authorization=AUTH', '--client-id', 'SECRET-ID', URL],
      'the option --client-id cannot be used here: a static authorization header (--header or --header-env) turns the sign-in off',
    ],
    [
      ['--client-issuer', 'http://SECRET.example.com', '--client-id', 'c', URL],
      'the value of --client-issuer is not valid: it is not an https URL, and http is allowed only for a loopback host',
    ],
    [
      ['--token-store', 'file', URL],
      '--token-store file needs a key: set the environment variable MCP_BRIDGE_TOKEN_KEY, or give --token-key-file',
    ],
    [
      ['logout', '--account', 'work'],
      'the URL of the upstream server is missing: give it after the options of logout, or give --all',
    ],
    [
      ['logout', '--all', URL],
      'the option --all cannot be used here: logout takes the URL of an upstream server or --all, not both',
    ],
  ])('%j', async (args, diagnostic) => {
    const outcome = await run(args, { AUTH: 'Bearer SECRET-AUTH' });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toEqual([]);
    expect(outcome.stderr.filter((line) => line !== '')).toEqual([
      `mcp-bridge-vscode: vscode: error: ${diagnostic}`,
      ...USAGE,
    ]);
  });

  it('an invalid MCP_BRIDGE_TOKEN_KEY is named, never shown', async () => {
    const outcome = await run([URL], { MCP_BRIDGE_TOKEN_KEY: 'SECRET-KEY' });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toEqual([]);
    expect(outcome.stderr[0]).toBe(
      'mcp-bridge-vscode: vscode: error: the environment variable MCP_BRIDGE_TOKEN_KEY is not valid: give 64 hexadecimal digits',
    );
    expect(outcome.stderr.join('\n')).not.toContain('SECRET');
  });

  it('a forced keychain that does not open ends the start with exit code 2 and nothing on stdout', async () => {
    const outcome = await run(['--token-store', 'keychain', URL]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toEqual([]);
    expect(outcome.stderr.filter((line) => line !== '')).toHaveLength(1);
    expect(outcome.stderr[0]).toMatch(/^mcp-bridge-vscode: vscode: error: the token store did not open: /);
    expect(outcome.stderr.join('\n')).not.toContain('SECRET');
  });
});

describe('a static authorization header turns the sign-in off (docs/http-upstream.md#http-headers)', () => {
  it('a 401 fails initialize with HTTP status 401: no sign-in line, no token store', async () => {
    const fixture = await startHttpFixture({ bearer: 'the-right-token' });
    try {
      const peer = spawnPeer(
        process.execPath,
        [BRIDGE, '--header-env', 'Authorization=AUTH', fixture.url],
        bridgeEnv({ AUTH: 'Bearer SECRET-wrong-token', XDG_STATE_HOME: dir }),
      );
      peer.send(initializeRequest(1));
      const response = await peer.nextFrame(responseTo(1), 20_000);
      expect(response['error']).toMatchObject({
        code: -32603,
        data: {
          cause: 'transport_failed',
          detail: 'server/discover: the upstream server refused the access, HTTP status 401',
        },
      });
      expect(fixture.received.map((request) => request.headers.authorization)).toEqual([
        'Bearer SECRET-wrong-token',
      ]);
      peer.closeStdin();
      await peer.exit;
      expect(
        peer.stderr.filter((line) => line.includes('sign in at') || line.includes('the tokens')),
      ).toEqual([]);
      expect(peer.stderr.join('\n')).not.toContain('SECRET');
    } finally {
      await fixture.close();
    }
  });
});
