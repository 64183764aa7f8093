/**
 * A start URL followed by another browser first (SECURITY.md requirement 14): its second GET after
 * the redirect gets the warning page and `confirm()` refuses the sign-in, in both orders (the
 * second GET during the token exchange, or while the start URL is watched after it). The owner
 * lookup is injected: `unavailable` is a platform without a socket table (macOS, Windows).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../../src/oauth/receiver.js';
import type { Receiver, ReceiverLimits, ReceiverOptions } from '../../src/oauth/receiver.js';
import { get, pathOf, recordingLogger } from './receiverHttp.js';

const AUTHORIZE = 'https://as.example/authorize?response_type=code&state=st-1&client_id=c';
const WARNING =
  'This start URL was opened a second time after a sign-in had come back through it, so the bridge ' +
  'does not use that sign-in: someone else may have opened the start URL and signed in with their ' +
  'own account. Start the sign-in again.';
const REFUSED_LINE =
  'oauth: warn: the start URL of the sign-in received a second request after the redirect, thus the ' +
  'bridge does not use the sign-in: someone else may have opened the start URL and signed in with ' +
  'their own account';
const HOUR = 3_600_000;
const receivers: Receiver[] = [];

type Lookup = NonNullable<ReceiverOptions['peerOwner']>;
const unchecked: Lookup = () => ({ kind: 'unavailable' });
const sameUser: Lookup = () => ({ kind: 'uid', uid: 1000 });

async function receiver(peerOwner: Lookup, limits: Partial<ReceiverLimits>) {
  const logger = recordingLogger();
  const r = await startReceiver({ port: 0, logger, peerOwner, uid: 1000, limits });
  receivers.push(r);
  const port = Number(new URL(r.redirectUri).port);
  const armed = r.expect({ state: 'st-1', authorizationUrl: AUTHORIZE, withStartUrl: true });
  return { r, logger, port, armed, start: pathOf(armed.startUrl!) };
}

afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('a second GET of the start URL after the redirect', () => {
  it('during the token exchange: 410 with the warning, and confirm() refuses the sign-in (sign_in_hijacked)', async () => {
    // The owner check passed, so no watch would run: the rule holds without it.
    const { port, logger, armed, start } = await receiver(sameUser, { startWatchMs: HOUR });
    expect((await get(port, start)).status).toBe(303); // the foreign browser
    expect((await get(port, '/callback?code=foreign&state=st-1')).status).toBe(200);
    expect((await armed.result).code).toBe('foreign');
    const late = await get(port, start); // the user's browser, while the exchange runs
    expect([late.status, late.body.includes(WARNING)]).toEqual([410, true]);
    await expect(armed.confirm()).rejects.toMatchObject({
      name: 'BridgeError',
      code: 'sign_in_hijacked',
      detail: undefined,
    });
    expect(logger.lines).toContain(REFUSED_LINE);
  });

  it('while the start URL is watched after the exchange (owner unchecked): 410 with the warning, and confirm() refuses', async () => {
    const { port, logger, armed, start } = await receiver(unchecked, { startWatchMs: HOUR });
    expect((await get(port, start)).status).toBe(303);
    expect((await get(port, '/callback?code=foreign&state=st-1')).status).toBe(200);
    await armed.result;
    const confirmed = armed.confirm();
    confirmed.catch(() => undefined);
    expect(logger.lines).toContain(
      'oauth: info: the bridge uses the sign-in in 3600 s, unless the start URL gets a second request (SECURITY.md)',
    );
    // The receiver still serves: the callback answers 400, the start path the warning.
    expect((await get(port, '/callback?code=c-2&state=st-1')).status).toBe(400);
    const late = await get(port, start);
    expect([late.status, late.body.includes(WARNING)]).toEqual([410, true]);
    await expect(confirmed).rejects.toMatchObject({ code: 'sign_in_hijacked' });
    expect(logger.lines).toContain(REFUSED_LINE);
    // The sign-in is over: the start path is dead.
    expect((await get(port, start)).status).toBe(404);
  });
});

describe('confirm() without a second GET', () => {
  it('resolves after the watch when the owner of the 303 was not checked; the start path is dead then', async () => {
    const { port, armed, start } = await receiver(unchecked, { startWatchMs: 200 });
    expect((await get(port, start)).status).toBe(303);
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    expect((await armed.result).code).toBe('c-1');
    await armed.confirm();
    expect((await get(port, start)).status).toBe(404);
  });

  it('resolves at once when the owner check passed for the 303 (an hour of watch would time the test out)', async () => {
    const { port, logger, armed, start } = await receiver(sameUser, { startWatchMs: HOUR });
    expect((await get(port, start)).status).toBe(303);
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    await armed.result;
    await armed.confirm();
    expect(logger.lines.filter((line) => line.includes('uses the sign-in in'))).toEqual([]);
  });

  it('resolves at once when nobody followed the start URL (the sign-in line was used)', async () => {
    const { port, armed, start } = await receiver(unchecked, { startWatchMs: HOUR });
    expect((await get(port, '/callback?code=c-1&state=st-1')).status).toBe(200);
    await armed.result;
    // The browser comes late: its first GET is no reuse.
    expect((await get(port, start)).status).toBe(200);
    await armed.confirm();
  });
});
