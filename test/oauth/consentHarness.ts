/**
 * The in-process harness of the consent tests: createBridge with the real HTTP upstream in front of
 * the HTTP fixture, whose `intercept` plays the protected resource (401/403 by token), and a fake
 * UpstreamAuth that does what the sign-in of src/oauth does with the consent port: before
 * `initialized` it "signs in" at once (the browser path), after it asks the client with a URL
 * elicitation, completes it and emits signedIn$.
 */
import { Subject, defer, of } from 'rxjs';
import { expect } from 'vitest';
import { createConsentRelay } from '../../src/bridge/consent.js';
import { DEFAULT_LIMITS } from '../../src/bridge/config.js';
import { createBridge } from '../../src/bridge/createBridge.js';
import type { Logger } from '../../src/ports/logger.js';
import type { ConsentPort, UpstreamAuth } from '../../src/ports/signIn.js';
import { createHttpUpstream } from '../../src/edges/http/httpUpstream.js';
import { BridgeError } from '../../src/protocol/bridgeError.js';
import type { Frame, JsonObject, RequestId } from '../../src/protocol/jsonrpc.js';
import type { Inbound } from '../../src/protocol/parseLine.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { FixtureRequest, HttpFixture } from '../fixtures/httpFixture.js';
import { ajvInputChecks } from '../../src/codec/input/schemas.js';

export const SIGN_IN_URL = 'https://as.example.test/authorize?state=s1&redirect_uri=x';
export const SIGN_IN_MESSAGE =
  'The upstream server needs a new sign-in. Open the URL and sign in at the authorization server.';

/** One call of challenge as the fake saw it. */
export interface ChallengeCall {
  readonly status: number;
  readonly wwwAuthenticate: string | undefined;
  readonly method: string;
  readonly phase: 'initializing' | 'ready';
  readonly signal: AbortSignal;
  readonly authorization?: string | undefined;
}

export interface FakeAuth extends UpstreamAuth {
  token: string | undefined;
  readonly calls: ChallengeCall[];
  readonly signedInSubject: Subject<void>;
  /** The token the next sign-in gives; the test changes it to make the server refuse the old one. */
  nextToken: string;
  /** The scope the next sign-in grants (for the 403 of the fixture). */
  granted: string;
  nextScope: string;
}

/** The fake sign-in: the consent port decides between the browser path and the URL elicitation. */
export function fakeAuth(consent: ConsentPort): FakeAuth {
  // Per sign-in harness, so that the ids of a test do not depend on the tests before it.
  let elicitations = 0;
  const signedInSubject = new Subject<void>();
  const auth: FakeAuth = {
    token: undefined,
    calls: [],
    signedInSubject,
    nextToken: 'token-1',
    granted: '',
    nextScope: 'read',
    signedIn$: signedInSubject.asObservable(),
    header: () => (auth.token === undefined ? undefined : `Bearer ${auth.token}`),
    async challenge(input) {
      const phase = consent.phase();
      auth.calls.push({ ...input, phase });
      if (phase === 'ready') {
        if (!consent.clientSupportsUrl()) {
          throw new BridgeError('reauthorization_required', { detail: 'no_consent' });
        }
        const elicitationId = `sign-in-${++elicitations}`;
        const action = await consent.askUrl({
          url: SIGN_IN_URL,
          message: SIGN_IN_MESSAGE,
          elicitationId,
          signal: input.signal,
        });
        if (action !== 'accept') throw new BridgeError('reauthorization_required', { detail: 'declined' });
        auth.token = auth.nextToken;
        auth.granted = auth.nextScope;
        consent.complete(elicitationId);
      } else {
        auth.token = auth.nextToken;
        auth.granted = auth.nextScope;
      }
      signedInSubject.next();
    },
  };
  return auth;
}

/** What the protected fixture accepts: the valid token, and the scope of each tool. */
export interface Protection {
  validToken: string;
  scopes: Record<string, string>;
  /** Refuse listen streams with this status while set. */
  refuseListen?: number | undefined;
}

export function protect(fixture: HttpFixture, auth: FakeAuth, protection: Protection): void {
  fixture.intercept = (request: FixtureRequest) => {
    if (request.method === 'subscriptions/listen' && protection.refuseListen !== undefined) {
      return { status: protection.refuseListen };
    }
    if (request.headers.authorization !== `Bearer ${protection.validToken}`) {
      return {
        status: 401,
        headers: { 'www-authenticate': 'Bearer resource_metadata="https://rs.example.test/prm"' },
        body: 'x'.repeat(100_000),
      };
    }
    const params = (request.body as { params?: JsonObject } | undefined)?.params;
    const tool = typeof params?.['name'] === 'string' ? params['name'] : '';
    const scope = request.method === 'tools/call' ? protection.scopes[tool] : undefined;
    if (scope !== undefined && !auth.granted.split(' ').includes(scope)) {
      return {
        status: 403,
        headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}"` },
      };
    }
    return undefined;
  };
}

export interface Harness {
  readonly fixture: HttpFixture;
  readonly auth: FakeAuth;
  readonly out: Frame[];
  readonly logs: string[];
  send(frame: Frame): void;
  /** Resolves with the first output frame (from `from` on) that matches. */
  next(match: (frame: Frame) => boolean, from?: number): Promise<Frame>;
  responseTo(id: RequestId): Promise<Frame>;
  close(): Promise<void>;
}

const frameOf = (value: Frame): Inbound => ({ kind: 'frame', frame: value });

export async function startHarness(options: { auth?: 'none' } = {}): Promise<Harness> {
  const fixture = await startHttpFixture({});
  const relay = createConsentRelay();
  const auth = fakeAuth(relay.port);
  const logs: string[] = [];
  const logger: Logger = {
    log: (scope, level, text) => logs.push(`${scope}: ${level}: ${text}`),
    enabled: () => true,
  };
  const withAuth = options.auth !== 'none';
  const bridge = createBridge(
    { version: '1.0.0', fallbackName: 'fixture', limits: { ...DEFAULT_LIMITS, listenBackoffMs: 50 } },
    {
      connect: () =>
        defer(() =>
          of(createHttpUpstream({ url: fixture.url, env: {}, ...(withAuth ? { auth } : {}) }, logger)),
        ),
      logger,
      checks: ajvInputChecks,
      ...(withAuth ? { consent: relay, signIn$: auth.signedIn$ } : {}),
    },
  );
  const input = new Subject<Inbound>();
  const out: Frame[] = [];
  const waiters = new Set<() => void>();
  const subscription = bridge(input).subscribe((frame) => {
    out.push(frame);
    for (const wake of [...waiters]) wake();
  });
  const next = (match: (frame: Frame) => boolean, from = 0): Promise<Frame> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = out.slice(from).find(match);
        if (found === undefined) return false;
        waiters.delete(wake);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        waiters.delete(wake);
        reject(new Error(`no matching frame; got ${JSON.stringify(out)}`));
      }, 10_000);
      waiters.add(wake);
      check();
    });
  return {
    fixture,
    auth,
    out,
    logs,
    send: (frame) => input.next(frameOf(frame)),
    next,
    responseTo: (id) => next((frame) => 'id' in frame && frame.id === id && !('method' in frame)),
    async close() {
      input.complete();
      subscription.unsubscribe();
      await fixture.close();
    },
  };
}

/** `initialize` with the capabilities of VS Code, with or without URL elicitation. */
export function initialize(id: RequestId, url: boolean): Frame {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: { elicitation: url ? { form: {}, url: {} } : { form: {} } },
      clientInfo: { name: 'Visual Studio Code', version: '1.99.0' },
    },
  };
}

export const initialized: Frame = { jsonrpc: '2.0', method: 'notifications/initialized' };

export const callTool = (id: RequestId, name: string, args: JsonObject = {}): Frame => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** The index of a frame in the output, failing when absent. */
export function indexOf(out: readonly Frame[], frame: Frame): number {
  const at = out.indexOf(frame);
  expect(at).toBeGreaterThanOrEqual(0);
  return at;
}
