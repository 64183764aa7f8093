/**
 * The set-up the smoke tests of the test authorization servers share (authServerHand.test.ts,
 * authServerMcp.test.ts): the test CA, a fetch that trusts it and the callback page for the whole
 * file, and everything a test started closed after it, the last started first.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { caFetch, startCallbackPage } from '../fixtures/oauth/oauthClient.js';
import type { CaFetch, CallbackPage } from '../fixtures/oauth/oauthClient.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';

/** What authServerSuite gives a test file; certs, http and page are there from its beforeAll on. */
export interface AuthServerSuite {
  readonly certs: TestCerts;
  readonly http: CaFetch;
  readonly page: CallbackPage;
  /** Closes `item` after the test, the last registered first. */
  readonly defer: <T extends { close(): Promise<void> }>(item: T) => T;
}

/** Call once at the top level of a test file: it registers the hooks. */
export function authServerSuite(): AuthServerSuite {
  let certs: TestCerts | undefined;
  let http: CaFetch | undefined;
  let page: CallbackPage | undefined;
  const closers: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    certs = makeTestCerts();
    http = caFetch(certs.caPem);
    page = await startCallbackPage();
  });
  afterEach(async () => {
    for (const item of closers.splice(0).reverse()) await item.close();
  });
  afterAll(async () => {
    await http?.close();
    await page?.close();
    certs?.remove();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('authServerSuite: used outside a test');
    return value;
  };
  return {
    get certs() {
      return ready(certs);
    },
    get http() {
      return ready(http);
    },
    get page() {
      return ready(page);
    },
    defer: (item) => {
      closers.push(item);
      return item;
    },
  };
}
