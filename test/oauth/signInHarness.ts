/**
 * The pieces of the in-process sign-in tests (test/oauth/signIn*.test.ts): createUpstreamAuth
 * with a fetch that trusts the test CA, the memory store, the real loopback receiver, a fake
 * consent port (fakeConsent.ts) and the test browser's core as the opener; the "HTTP upstream"
 * of signInUpstream.ts; and signInSuite, the set-up and clean-up every one of those files shares.
 */
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { LogLevel } from '../../src/ports/logger.js';
import { createUpstreamAuth } from '../../src/oauth/upstreamAuth.js';
import type { SignInConfig, SignInDeps } from '../../src/oauth/signInConfig.js';
import type { UpstreamAuth } from '../../src/ports/signIn.js';
import { createMemoryStore, createProcessLock } from '../../src/oauth/store/memoryStore.js';
import type { SignInLock, TokenRecord, TokenStore } from '../../src/oauth/store/types.js';
import { browse } from '../fixtures/oauth/testBrowser.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import type { BrowserMode } from '../fixtures/oauth/testBrowser.js';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { startProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import type { ProtectedMcp, ProtectedMcpOptions, TokenIssuer } from '../fixtures/oauth/protectedMcp.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';
import { fakeConsent } from './fakeConsent.js';
import type { FakeConsent } from './fakeConsent.js';

export { fakeConsent } from './fakeConsent.js';
export { post, request, rewritingReceiver } from './signInUpstream.js';
export type { McpReply } from './signInUpstream.js';
export type { ConsentAnswer, FakeConsent } from './fakeConsent.js';

/** The URL of a fetch input. */
export const href = (input: string | URL | Request): string =>
  typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;

/**
 * `fetch`, except that a request whose URL ends with `suffix` gets `body` as a JSON answer with
 * `status` and never reaches the network (a server's answer the fixtures do not give).
 */
export function answeringAt(
  fetch: typeof globalThis.fetch,
  suffix: string,
  status: number,
  body: unknown,
): typeof globalThis.fetch {
  return (input, init) =>
    href(input).endsWith(suffix)
      ? Promise.resolve(
          new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
        )
      : fetch(input, init);
}

export interface LogLine {
  readonly scope: string;
  readonly level: LogLevel;
  readonly text: string;
}

/** A fetch through an undici Agent that trusts the test CA (what the upstream's dispatcher does). */
export function caFetchFn(ca: string): { fetch: typeof globalThis.fetch; close(): Promise<void> } {
  const agent = new Agent({ connect: { ca } });
  const fetch = ((input: string | URL | Request, init?: RequestInit) =>
    undiciFetch(input as string, {
      ...(init as object),
      dispatcher: agent,
    })) as unknown as typeof globalThis.fetch;
  return { fetch, close: () => agent.close() };
}

export interface Harness {
  readonly auth: UpstreamAuth & { load(): Promise<void> };
  readonly consent: FakeConsent;
  readonly store: TokenStore;
  readonly logs: LogLine[];
  readonly signInLines: string[];
  /** The start URLs given to the opener. */
  readonly opened: string[];
  /** Every request URL of the sign-in. */
  readonly fetched: string[];
  /** The secrets the sign-in sent (code, verifier, refresh token, client secret), for the secret scan. */
  readonly sentSecrets: string[];
  /** Every refresh token a request of the sign-in carried to the network, in order. */
  readonly refreshTokens: string[];
  /** What the opener does with the start URL: the test browser in a mode, or nothing. */
  browserMode: BrowserMode | 'none';
  /** The errors challenge() rejected with, as `<code>: <detail>` lines. */
  readonly errors: string[];
  /**
   * The secret scan of every log line, sign-in line and error of this harness: no code,
   * verifier, access or refresh token, or client secret.
   */
  scan(extra?: readonly string[]): void;
  close(): Promise<void>;
}

export interface HarnessOptions {
  readonly ca: string;
  readonly config: Partial<SignInConfig> & Pick<SignInConfig, 'url'>;
  readonly store?: TokenStore;
  readonly lock?: SignInLock;
  readonly consent?: FakeConsent;
  readonly now?: () => number;
  readonly env?: NodeJS.ProcessEnv;
  readonly deps?: Partial<SignInDeps>;
  /** Awaited before each request of the sign-in goes to the network (a test holds one back). */
  readonly gate?: (url: string, form: URLSearchParams | undefined) => Promise<void>;
  /** What the sign-in gets for a request that went to the network (a test loses an answer). */
  readonly answer?: (form: URLSearchParams | undefined, response: Promise<Response>) => Promise<Response>;
}

export function signInConfig(config: HarnessOptions['config']): SignInConfig {
  return {
    bridgeName: 'mcp-bridge-vscode',
    clientName: 'mcp-bridge-vscode (mcp-bridge-sdk)',
    redirectPort: 0,
    account: 'default',
    defaultMetadataUrl: 'https://mcp-bridge-sdk.github.io/mcp-bridge-sdk/vscode/client.json',
    noBrowser: false,
    signInTimeoutMs: 20_000,
    sandbox: false,
    secretVariables: [],
    ...config,
  };
}

/** `inner` with another write; read, delete and list go to `inner`. */
export function writingThrough(inner: TokenStore, write: TokenStore['write']): TokenStore {
  return {
    ...inner,
    read: (key) => inner.read(key),
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
    write,
  };
}

export function harness(options: HarnessOptions): Harness {
  const logs: LogLine[] = [];
  const signInLines: string[] = [];
  const opened: string[] = [];
  const fetched: string[] = [];
  const sentSecrets: string[] = [];
  const refreshTokens: string[] = [];
  const net = caFetchFn(options.ca);
  const consent = options.consent ?? fakeConsent(options.ca);
  const inner = options.store ?? createMemoryStore();
  const errors: string[] = [];
  const written: string[] = [];
  // Every record written passes here, so that its secrets join the scan.
  const store = writingThrough(inner, (record) => {
    for (const value of [record.accessToken, record.refreshToken, record.client.clientSecret]) {
      if (value !== undefined) written.push(value);
    }
    return inner.write(record);
  });
  const result: Harness = {
    auth: undefined as unknown as Harness['auth'],
    consent,
    store,
    logs,
    signInLines,
    opened,
    fetched,
    sentSecrets,
    refreshTokens,
    browserMode: 'follow',
    errors,
    scan: (extra = []) =>
      expectNoSecrets(
        {
          lines: [],
          stderr: [...logs.map((l) => `${l.scope}: ${l.level}: ${l.text}`), ...signInLines, ...errors],
        },
        [...written, ...sentSecrets, ...extra],
      ),
    close: () => net.close(),
  };
  const fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    fetched.push(url);
    const body = init?.body;
    const form =
      body instanceof URLSearchParams
        ? body
        : typeof body === 'string'
          ? new URLSearchParams(body)
          : undefined;
    for (const name of ['code', 'code_verifier', 'refresh_token', 'client_secret']) {
      const value = form?.get(name);
      if (value !== null && value !== undefined && value !== '') sentSecrets.push(value);
    }
    await options.gate?.(url, form);
    // What fetch itself does with an aborted signal: nothing goes to the network.
    init?.signal?.throwIfAborted();
    const refreshToken = form?.get('refresh_token');
    if (refreshToken !== null && refreshToken !== undefined) refreshTokens.push(refreshToken);
    const response = net.fetch(input, init);
    return options.answer === undefined ? response : options.answer(form, response);
  }) as typeof globalThis.fetch;
  const auth = createUpstreamAuth(signInConfig(options.config), {
    fetch,
    store,
    lock: options.lock ?? createProcessLock(),
    logger: { log: (scope, level, text) => void logs.push({ scope, level, text }), enabled: () => true },
    env: options.env ?? {},
    consent,
    ...(options.now === undefined ? {} : { now: options.now }),
    openBrowser: (startUrl) => {
      opened.push(startUrl);
      if (result.browserMode !== 'none') {
        void browse(startUrl, { ca: options.ca, mode: result.browserMode }).catch(() => undefined);
      }
      return Promise.resolve(true);
    },
    writeSignInLine: (line) => void signInLines.push(line),
    ...options.deps,
  });
  const challenge: Harness['auth']['challenge'] = (input) => auth.challenge(input);
  const watched: Harness['auth'] = {
    ...auth,
    challenge: (input) =>
      challenge(input).catch((error: unknown) => {
        const { code, detail, message } = error as { code?: string; detail?: string; message?: string };
        errors.push(`${code ?? 'no code'}: ${detail ?? ''} ${message ?? ''}`);
        throw error;
      }),
  };
  (result as { auth: Harness['auth'] }).auth = watched;
  return result;
}

/** Every log line and sign-in line of a harness, as the secret scan reads them. */
export const harnessOutput = (h: Harness): { lines: string[]; stderr: string[] } => ({
  lines: [],
  stderr: [...h.logs.map((l) => `${l.scope}: ${l.level}: ${l.text}`), ...h.signInLines],
});

/** The secrets of a stored record (access and refresh token, client secret), for the secret scan. */
export const secretsOf = (record: TokenRecord | undefined): string[] =>
  [record?.accessToken, record?.refreshToken, record?.client.clientSecret].filter(
    (value): value is string => value !== undefined,
  );

/** What signInSuite gives a test file; certs and net are there from its beforeAll on. */
export interface SignInSuite {
  /** The test CA and the server certificate it signed. */
  readonly certs: TestCerts;
  /** A fetch that trusts the test CA, for the requests of the test itself. */
  readonly net: { readonly fetch: typeof globalThis.fetch };
  /** Runs `close` after the test, the last registered first. */
  readonly defer: (close: () => Promise<void>) => void;
  /** A harness that trusts the test CA, closed after the test and secret-scanned (Harness.scan). */
  readonly make: (options: Omit<HarnessOptions, 'ca'>) => Harness;
  /** The protected MCP fixture in front of `as`; a request that passes its bearer check is answered 200. */
  readonly mcpFor: (as: TokenIssuer, options?: Partial<ProtectedMcpOptions>) => Promise<ProtectedMcp>;
  /** oidc-provider and the protected MCP fixture (mcpFor) in front of it. */
  readonly servers: (
    asOptions?: Partial<AuthServerOptions>,
    mcpOptions?: Partial<ProtectedMcpOptions>,
  ) => Promise<{ as: AuthServer; mcp: ProtectedMcp }>;
}

/**
 * The set-up of a signIn*.test.ts file: the test CA and a fetch that trusts it for the whole
 * file; after each test, the secret scan of every harness it made, then everything it started
 * closed in reverse order. Call it once at the top level of the file.
 */
export function signInSuite(): SignInSuite {
  let certs: TestCerts | undefined;
  let net: ReturnType<typeof caFetchFn> | undefined;
  const closers: Array<() => Promise<void>> = [];
  const made: Harness[] = [];
  beforeAll(() => {
    certs = makeTestCerts();
    net = caFetchFn(certs.caPem);
  });
  afterEach(async () => {
    for (const h of made.splice(0)) h.scan();
    for (const close of closers.splice(0).reverse()) await close();
  });
  afterAll(async () => {
    await net?.close();
    certs?.remove();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('signInSuite: used outside a test');
    return value;
  };
  const suite: SignInSuite = {
    get certs() {
      return ready(certs);
    },
    get net() {
      return ready(net);
    },
    defer: (close) => void closers.push(close),
    make: (options) => {
      const h = harness({ ca: suite.certs.caPem, ...options });
      closers.push(() => h.close());
      made.push(h);
      return h;
    },
    mcpFor: async (as, options = {}) => {
      const mcp = await startProtectedMcp({ tls: suite.certs, authServer: as, ...options });
      closers.push(() => mcp.close());
      // A request that passed the bearer check is answered 200 by the fixture behind it.
      mcp.fixture.intercept = () => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      return mcp;
    },
    servers: async (asOptions = {}, mcpOptions = {}) => {
      const as = await startAuthServer({ tls: suite.certs, caPem: suite.certs.caPem, ...asOptions });
      closers.push(() => as.close());
      return { as, mcp: await suite.mcpFor(as, mcpOptions) };
    },
  };
  return suite;
}
