/**
 * Static credentials of the URL form (docs/http-upstream.md#http-headers, docs/testing.md#testing-process items 22, 26 and 31): an
 * `Authorization` header from the environment is sent with every request and excludes sign-in;
 * its value, the other header values and the URL (with a key in its query) never reach stderr,
 * not even at the debug level, nor an error message on stdout. The upstream is the fixture
 * executable (`httpFixture.js --bearer-env`), which stops at the end of its stdin.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { initializeRequest } from '../helpers/bridgeProcess.js';
import { killAllPeers, responseTo } from '../helpers/rawPeer.js';
import {
  bridgeEnv,
  callTool,
  endAndExit,
  firstText,
  handshake,
  leaks,
  startUrlBridge,
  WAIT_MS,
} from './httpSupport.js';

const FIXTURE = new URL('../../dist/test/fixtures/httpFixture.js', import.meta.url).pathname;
const TOKEN = 'SECRET-t1-bearer';
const QUERY_KEY = 'SECRET-q9';
const OTHER = 'SECRET-h4-header';

let fixture: ChildProcess | undefined;
let url: string;

/** The fixture executable that requires `Bearer TOKEN`, one for the file (it starts slowly). */
beforeAll(async () => {
  fixture = spawn(process.execPath, [FIXTURE, '--port', '0', '--bearer-env', 'FIXTURE_TOKEN'], {
    env: bridgeEnv({ FIXTURE_TOKEN: TOKEN }),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  createInterface({ input: fixture.stderr! }).on('line', (line) => stderr.push(line));
  const [line] = (await once(createInterface({ input: fixture.stdout! }), 'line')) as [string];
  url = line;
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  expect(stderr.filter((text) => text.includes(TOKEN))).toEqual([]);
});
afterAll(async () => {
  if (fixture === undefined || fixture.exitCode !== null) return;
  const exited = once(fixture, 'exit');
  fixture.stdin!.end();
  // The fixture stops at the end of its stdin.
  expect((await exited)[0]).toBe(0);
});
afterEach(killAllPeers);

const SECRETS = [TOKEN, QUERY_KEY, OTHER];

describe('static authorization and secrets of the URL form', () => {
  it('--header-env Authorization sends the token with every request, and no secret or URL reaches stderr at debug level', async () => {
    const peer = startUrlBridge(
      `${url}?key=${QUERY_KEY}`,
      ['--log-level', 'debug', '--header-env', 'Authorization=BRIDGE_TOKEN', '--header-env', 'X-Other=OTHER'],
      bridgeEnv({ BRIDGE_TOKEN: `Bearer ${TOKEN}`, OTHER }),
    );
    expect(await handshake(peer)).toHaveProperty('result.serverInfo.name', 'bridge-fixture-server');
    expect(firstText(await callTool(peer, 'echo', { text: 'authorized' }))).toBe('authorized');
    const missing = await callTool(peer, 'no_such_tool');
    expect(missing).toHaveProperty('error');
    expect(leaks(peer, SECRETS)).toEqual([]);
    // Debug lines were written, and none names the endpoint.
    expect(peer.stderr.some((line) => line.includes(': debug: upstream request'))).toBe(true);
    expect(peer.stderr.filter((line) => line.includes(new URL(url).host))).toEqual([]);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a wrong inline token fails initialize with -32603 and HTTP status 401 in the detail, with the inline warning and without a sign-in or secrets', async () => {
    const peer = startUrlBridge(`${url}?key=${QUERY_KEY}`, [
      '--log-level',
      'debug',
      '--header',
      'Authorization: Bearer SECRET-wrong',
      '--header',
      `X-Other: ${OTHER}`,
    ]);
    peer.send(initializeRequest(1));
    const response = await peer.nextFrame(responseTo(1), WAIT_MS);
    expect(response).toMatchObject({ error: { code: -32603, data: { cause: 'transport_failed' } } });
    const detail = (response['error'] as { data: { detail: string } }).data.detail;
    expect(detail).toContain('HTTP status 401');
    // Only the known credential names warn; X-Other is not one.
    expect(peer.stderr.filter((line) => line.includes(': warning: the value of the header'))).toEqual([
      'mcp-bridge-vscode: vscode: warning: the value of the header Authorization is on the command line, ' +
        'where other local users may see it: give it with --header-env instead',
    ]);
    expect(peer.stderr.filter((line) => /sign.?in|browser|authorization server/i.test(line))).toEqual([]);
    expect(leaks(peer, [...SECRETS, 'SECRET-wrong'])).toEqual([]);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a failed connection names no URL in the error on stdout nor on stderr', async () => {
    const closed = new URL(url);
    closed.port = '9';
    closed.search = `?key=${QUERY_KEY}`;
    const peer = startUrlBridge(closed.href, ['--log-level', 'debug']);
    peer.send(initializeRequest(1));
    const response = await peer.nextFrame(responseTo(1), WAIT_MS);
    expect(response).toMatchObject({ error: { code: -32603, data: { cause: 'transport_failed' } } });
    expect(leaks(peer, [...SECRETS, closed.host, '/mcp'])).toEqual([]);
    expect(await endAndExit(peer)).toBe(0);
  });
});
