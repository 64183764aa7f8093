/**
 * The listen stream over HTTP (docs/http-upstream.md#http-listen-stream): its own long POST, which carries the
 * list changes of the server to the client; reopened after 408, 429 and 5xx except 501, and
 * stopped on other statuses, each with its stderr line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
import { killAllPeers, notification } from '../helpers/rawPeer.js';
import type { RawPeer } from '../helpers/rawPeer.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { FixtureReply, FixtureRequest, HttpFixture } from '../fixtures/httpFixture.js';
import { callTool, endAndExit, firstText, handshakeWithToolsList, startUrlBridge } from './httpSupport.js';

let fixture: HttpFixture | undefined;

afterEach(async () => {
  await killAllPeers();
  await fixture?.close();
  fixture = undefined;
});

const listens = (server: HttpFixture) =>
  server.received.filter((request) => request.method === 'subscriptions/listen').length;

/** Answers the first `count` listen requests with `reply`, the later ones normally. */
function refuseListens(server: HttpFixture, count: number, reply: FixtureReply): void {
  let refused = 0;
  server.intercept = (request: FixtureRequest) =>
    request.method === 'subscriptions/listen' && refused++ < count ? reply : undefined;
}

/**
 * Short reopen waits (`--listen-backoff`, `--listen-max-backoff`): the tests wait for the reopen,
 * not for the default 500 ms, 1 s, 2 s … of docs/notifications.md#notifications-reconnect.
 */
const FIRST_WAIT_MS = 20;
const LONGEST_WAIT_MS = 40;
const SHORT_WAITS = [
  '--listen-backoff',
  String(FIRST_WAIT_MS),
  '--listen-max-backoff',
  String(LONGEST_WAIT_MS),
];

async function start(setup?: (server: HttpFixture) => void): Promise<{ peer: RawPeer; server: HttpFixture }> {
  const server = (fixture = await startHttpFixture());
  setup?.(server);
  const peer = startUrlBridge(server.url, SHORT_WAITS);
  expect(await handshakeWithToolsList(peer)).toHaveProperty('result.capabilities.tools.listChanged', true);
  return { peer, server };
}

/**
 * The catch-up of the first acknowledgment for the tools the client listed (none for the
 * resources it did not list), then a change made by a tool reaches the client.
 */
async function expectListChange(peer: RawPeer): Promise<void> {
  await peer.nextFrame(notification('notifications/tools/list_changed'));
  expect(firstText(await callTool(peer, 'add_tool'))).toMatch(/^added added_\d+$/);
  await peer.nextFrame(notification('notifications/tools/list_changed'));
  const methods = peer.lines.map((line) => (JSON.parse(line) as { method?: unknown }).method);
  expect(methods.filter((method) => String(method).endsWith('/list_changed'))).toEqual([
    'notifications/tools/list_changed',
    'notifications/tools/list_changed',
  ]);
}

describe('the listen stream over HTTP', () => {
  it('an unsolicited list change of the server reaches the client over the listen stream, its own long POST', async () => {
    const { peer, server } = await start();
    await expectListChange(peer);
    expect(listens(server)).toBe(1);
    const listen = server.received.find((request) => request.method === 'subscriptions/listen')!;
    expect(listen.headers['mcp-method']).toBe('subscriptions/listen');
    expect(listen.body).toMatchObject({ params: { notifications: { toolsListChanged: true } } });
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a listen stream refused with 503 is opened again after the backoff, with a warning line', async () => {
    const { peer, server } = await start((server) => refuseListens(server, 1, { status: 503 }));
    await waitFor(() => listens(server) >= 2);
    expect(peer.stderr).toContain(
      'mcp-bridge-vscode: bridge: warning: the listen stream ended with the HTTP status 503; the next one opens in 20 ms.',
    );
    await expectListChange(peer);
    expect(await endAndExit(peer)).toBe(0);
  });

  it('a listen stream refused with 404 is not opened again, with its line, and requests still work', async () => {
    const { peer, server } = await start((server) => refuseListens(server, 1, { status: 404 }));
    await waitFor(() =>
      peer.stderr.includes(
        'mcp-bridge-vscode: bridge: warning: the listen stream failed with the HTTP status 404; list changes stop.',
      ),
    );
    // real timer: a reopen would come from a timer of the bridge process, whose clock this test
    // cannot move (the rule runs on virtual time in marbles/listenReconnect.marbles.test.ts): ten
    // times the first reopen wait and five times the longest (20 ms, 40 ms); the echo after it is
    // the sentinel that the bridge has handled all before.
    await new Promise((resolve) => setTimeout(resolve, 10 * FIRST_WAIT_MS));
    expect(listens(server)).toBe(1);
    expect(firstText(await callTool(peer, 'echo', { text: 'no listen' }))).toBe('no listen');
    expect(await endAndExit(peer)).toBe(0);
  });
});
