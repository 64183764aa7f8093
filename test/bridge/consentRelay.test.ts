/**
 * The consent relay with several connections bound at once, as under the HTTP front end
 * (docs/serve.md#serve-sessions): the newest asks; when it ends, the one before it asks again.
 */
import { describe, expect, it } from 'vitest';
import { createConsentRelay } from '../../src/bridge/consent.js';
import type { ConsentPort } from '../../src/ports/signIn.js';

const port = (phase: 'initializing' | 'ready', url: boolean): ConsentPort => ({
  phase: () => phase,
  clientSupportsUrl: () => url,
  askUrl: () => Promise.reject(new Error('not asked here')),
  complete: () => undefined,
});

describe('createConsentRelay', () => {
  it('asks through the newest bound connection, and through the older one after the newest ended', () => {
    const relay = createConsentRelay();
    expect(relay.port.phase()).toBe('initializing');
    const unbindOld = relay.bind(port('ready', true));
    const unbindNew = relay.bind(port('initializing', false));
    expect(relay.port.phase()).toBe('initializing');
    expect(relay.port.clientSupportsUrl()).toBe(false);
    unbindNew();
    expect(relay.port.phase()).toBe('ready');
    expect(relay.port.clientSupportsUrl()).toBe(true);
    unbindNew();
    expect(relay.port.phase()).toBe('ready');
    unbindOld();
    expect(relay.port.phase()).toBe('initializing');
  });
});
