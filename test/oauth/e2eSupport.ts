/**
 * The end-to-end setting of the sign-in: the real `@modelcontextprotocol/sdk`
 * 1.x `Client` drives the BUILT `mcp-bridge-vscode <url>` over stdio, in front of C's protected MCP
 * fixture and oidc-provider on loopback HTTPS (test CA through `--ca-file`), with the scripted test
 * browser as `$BROWSER`. The client declares URL elicitation; its handler accepts and "opens" the
 * URL with the test browser's logic in-process, as VS Code opens a browser (vscode-client.md §2.2),
 * and declines a form unless the run gives a `formAnswer`.
 * Needs `npm run build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { bridgeTransport } from '../interop/interopSupport.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BRIDGE } from '../helpers/bridgeProcess.js';
import { expectNoSecrets } from '../helpers/secretScan.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';
import { browse, readBrowserLog, testBrowserPath } from '../fixtures/oauth/testBrowser.js';
import type { BrowserLogLine } from '../fixtures/oauth/testBrowser.js';
import { bridgeEnv } from '../process/httpSupport.js';
import { startAuthServer } from '../fixtures/oauth/authServer.js';
import type { AuthServer, AuthServerOptions } from '../fixtures/oauth/authServer.js';
import { startProtectedMcp } from '../fixtures/oauth/protectedMcp.js';
import type { ProtectedMcp, ProtectedMcpOptions } from '../fixtures/oauth/protectedMcp.js';

/** A port that was free a moment ago (listen on 0, close): the tests never use a fixed port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** oidc-provider and the protected MCP fixture in front of it; `defer` gets their close, the server's first. */
export async function startServers(
  world: E2eWorld,
  defer: (close: () => Promise<void>) => void,
  asOptions: Partial<AuthServerOptions> = {},
  mcpOptions: Partial<ProtectedMcpOptions> = {},
): Promise<{ as: AuthServer; mcp: ProtectedMcp }> {
  const as = await startAuthServer({ tls: world.certs, caPem: world.certs.caPem, ...asOptions });
  defer(() => as.close());
  const mcp = await startProtectedMcp({ tls: world.certs, authServer: as, ...mcpOptions });
  defer(() => mcp.close());
  return { as, mcp };
}

/** Where one bridge run lives: its redirect port, its state folder and its test browser's log. */
export interface RunPlace {
  readonly port: number;
  readonly stateDir: string;
  readonly browserLog: string;
}

/** A new folder `<prefix>…` below the world for one run, and a port free a moment ago. */
export async function runPlace(world: E2eWorld, prefix: string): Promise<RunPlace> {
  const dir = mkdtempSync(join(world.dir, prefix));
  return { port: await freePort(), stateDir: join(dir, 'state'), browserLog: join(dir, 'browser.log') };
}

export interface E2eWorld {
  readonly certs: TestCerts;
  readonly dir: string;
  readonly caFile: string;
  readonly browser: string;
  remove(): void;
}

export function makeWorld(): E2eWorld {
  const certs = makeTestCerts();
  const dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-e2e-'));
  const caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, certs.caPem);
  return {
    certs,
    dir,
    caFile,
    browser: testBrowserPath(),
    remove() {
      certs.remove();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One URL elicitation the client got, and where the in-process browser ended. */
export interface Elicited {
  readonly url: string;
  readonly elicitationId: string;
  readonly message: string;
  /** Resolves when the browser reached the loopback callback (or failed). */
  readonly done: Promise<URL | undefined>;
}

export interface BridgeRun {
  readonly client: Client;
  /** stderr of the bridge, by line. */
  readonly stderr: string[];
  /** Every JSON-RPC message the bridge wrote to stdout, as JSON text. */
  readonly stdout: string[];
  readonly elicited: Elicited[];
  /** The lines of $TEST_BROWSER_LOG: one per start of the browser program. */
  browserLog(): BrowserLogLine[];
  /** Fails on any marker in stderr or stdout (the secret scan, test/helpers/secretScan.ts). */
  scan(markers: readonly string[]): void;
  close(): Promise<void>;
}

export interface RunOptions {
  readonly url: string;
  readonly redirectPort: number;
  readonly store: 'memory' | 'file';
  /** The state directory (the file store's place); shared by runs that share a store. */
  readonly stateDir: string;
  readonly browserLog: string;
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  /**
   * Whether the client declares URL elicitation. Default true; false declares form elicitation
   * only, `none` no elicitation at all (as Claude Desktop, Codex or Cursor).
   */
  readonly urlElicitation?: boolean | 'none';
  /** The built executable. Default `mcp-bridge-vscode` (BRIDGE). */
  readonly executable?: string;
  /** Called once the bridge process was started, before `initialize` completes: its pid. */
  readonly started?: (pid: () => number | null) => void;
  /** Called with each line of the bridge's stderr as it arrives, also before `initialize` completes. */
  readonly stderrLine?: (line: string) => void;
  /** The content of an `accept` to every form elicitation. Default: forms are declined. */
  readonly formAnswer?: Record<string, string | number | boolean>;
}

export const TOKEN_KEY = '5f'.repeat(32);

/** Starts the bridge under a 1.x Client; the URL is an argv item, never shell text. */
export async function startBridge(world: E2eWorld, options: RunOptions): Promise<BridgeRun> {
  // In the `--shared` run of the matrix the bridge starts as a shim (docs/testing.md#testing-shared-matrix).
  const transport = new StdioClientTransport(
    bridgeTransport({
      command: process.execPath,
      args: [
        options.executable ?? BRIDGE,
        '--ca-file',
        world.caFile,
        '--redirect-port',
        String(options.redirectPort),
        '--token-store',
        options.store,
        ...(options.args ?? []),
        options.url,
      ],
      env: bridgeEnv({
        BROWSER: world.browser,
        TEST_BROWSER_LOG: options.browserLog,
        TEST_BROWSER_CA_FILE: world.caFile,
        XDG_STATE_HOME: options.stateDir,
        // No keychain on the test machine: the Secret Service is unreachable without a session bus.
        DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus',
        ...(options.store === 'file' ? { MCP_BRIDGE_TOKEN_KEY: TOKEN_KEY } : {}),
        ...options.env,
      }) as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  const stderr: string[] = [];
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    stderr.push(...lines);
    if (options.stderrLine !== undefined) for (const line of lines) options.stderrLine(line);
  });
  const stdout: string[] = [];
  const client = new Client(
    { name: 'sdk-1x-e2e', version: '1.0.0' },
    {
      capabilities:
        options.urlElicitation === 'none'
          ? {}
          : { elicitation: options.urlElicitation === false ? { form: {} } : { form: {}, url: {} } },
    },
  );
  const elicited: Elicited[] = [];
  // The SDK refuses a handler for a capability the client did not declare.
  if (options.urlElicitation !== 'none')
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      const params = request.params;
      if (params.mode !== 'url')
        return options.formAnswer === undefined
          ? { action: 'decline' }
          : { action: 'accept', content: options.formAnswer };
      // VS Code opens the URL and answers accept at once; the sign-in completes in the browser.
      const done = browse(params.url, { ca: world.certs.caPem }).then(
        (result) => result.callback,
        () => undefined,
      );
      elicited.push({ url: params.url, elicitationId: params.elicitationId, message: params.message, done });
      return { action: 'accept' };
    });
  const connecting = client.connect(transport);
  options.started?.(() => transport.pid);
  try {
    await connecting;
  } catch (error) {
    // A failed initialize: the bridge is stopped, and its stderr goes with the error.
    await client.close().catch(() => undefined);
    const failure = error instanceof Error ? error : new Error(String(error));
    throw Object.assign(failure, { stderr: [...stderr, partial] });
  }
  // Every later message from stdout is recorded before the client sees it (the initialize result,
  // which came before, holds no secret: the server's capabilities and info).
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    stdout.push(JSON.stringify(message));
    deliver?.(message);
  };
  return {
    client,
    stderr,
    stdout,
    elicited,
    browserLog: () => readBrowserLog(options.browserLog),
    scan: (markers) => expectNoSecrets({ lines: stdout, stderr: [...stderr, partial] }, markers),
    close: () => client.close(),
  };
}
