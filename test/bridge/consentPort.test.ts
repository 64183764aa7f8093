/**
 * The consent port of one connection (src/bridge/consent.ts, docs/sign-in.md#sign-in-consent): a
 * sign-in after the initialize result asks this client, and its question waits for the client's
 * `notifications/initialized`.
 */
import { describe, expect, it } from 'vitest';
import { sessionConsent } from '../../src/bridge/consent.js';
import { createSession } from '../../src/bridge/session.js';
import type { Logger } from '../../src/ports/logger.js';
import type { Frame } from '../../src/protocol/jsonrpc.js';
import { decided } from './initialized.js';
import { urlQuestion } from '../helpers/elicitations.js';

const silent: Logger = { log: () => undefined, enabled: () => false };

describe('sessionConsent', () => {
  it('is initializing during initialize, then ready; the question waits for notifications/initialized', async () => {
    const session = createSession();
    const sent: Frame[] = [];
    const port = sessionConsent(session, (frame) => sent.push(frame), silent);
    session.beginInitialize();
    expect(port.phase()).toBe('initializing');
    // The initialize result was written; `initialized` has not come yet.
    session.becomeReady(decided('2025-11-25'));
    expect(port.phase()).toBe('ready');
    const action = port.askUrl({
      url: 'https://as.example/authorize',
      message: 'Sign in.',
      elicitationId: 'e-1',
      signal: new AbortController().signal,
    });
    expect(sent).toEqual([]);
    expect(session.markInitialized()).toBe(true);
    expect(sent).toEqual([
      urlQuestion('b-1', { message: 'Sign in.', url: 'https://as.example/authorize', elicitationId: 'e-1' }),
    ]);
    session.answer({ id: 'b-1', result: { action: 'accept' } });
    expect(await action).toBe('accept');
  });

  it('rejects a question that waits for notifications/initialized when the connection ends', async () => {
    const session = createSession();
    const sent: Frame[] = [];
    const port = sessionConsent(session, (frame) => sent.push(frame), silent);
    session.becomeReady(decided('2025-11-25'));
    const action = port.askUrl({
      url: 'https://as.example/authorize',
      message: 'Sign in.',
      elicitationId: 'e-1',
      signal: new AbortController().signal,
    });
    session.abortAll({ reason: 'the client closed the connection' });
    await expect(action).rejects.toMatchObject({ code: 'closed' });
    expect(sent).toEqual([]);
  });
});
