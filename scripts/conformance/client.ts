/**
 * The client of the official MCP conformance suite (`@modelcontextprotocol/conformance`, `client`
 * mode) for the back face of the bridge: the suite runs `node dist/scripts/conformance/client.js
 * <server-url>` against one scenario server; this driver stands in for VS Code.
 *
 * - It starts the BUILT executable in URL form with that URL, a free `--redirect-port`, the memory
 *   token store and `$BROWSER` = the scripted test browser (test/fixtures/oauth/testBrowser.ts),
 *   which GETs the start URL and follows the redirects: the scenario's authorization endpoint
 *   redirects without a user.
 * - It drives the bridge over stdio with the real `@modelcontextprotocol/sdk` 1.x `Client`:
 *   connect, list tools, call the tool the scenario expects (or the first one listed).
 * - Pre-registered credentials of `MCP_CONFORMANCE_CONTEXT` (`client_id`, `client_secret`) go in
 *   as `--client-id` and `MCP_BRIDGE_CLIENT_SECRET`; the bridge hands a secret only to the issuer
 *   of `--client-issuer`, which this driver reads from the protected resource metadata the way a
 *   person configuring the bridge would.
 * - The scenarios of a grant without a person (GRANTS) get `--grant`, and the key
 *   (`private_key_pem`), the platform's JWT (`valid_jwt`) or the person's ID token
 *   (`idp_id_token`) of the context in a file private to the user: `--client-key-file`,
 *   `--assertion-file`, `--id-token-file`. The IdP of `--grant id-jag` is `idp_issuer` and
 *   `idp_client_id` (`--idp-issuer`, `--idp-client-id`); its token endpoint comes from discovery.
 * - It declares form and URL elicitation, as VS Code does: a form is accepted with the defaults of
 *   its schema; an accepted URL opens in the scripted browser (one argument, no shell).
 *
 * Exit code 0 when every step worked, 1 otherwise; the bridge's stderr goes to this stderr.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { testBrowserPath } from '../../test/fixtures/oauth/testBrowser.js';

const BRIDGE = fileURLToPath(new URL('../../bin/mcp-bridge-vscode.js', import.meta.url));

/** The client ID metadata document URL that `auth/basic-cimd` expects (from the scenario source). */
const SUITE_CLIENT_DOCUMENT = 'https://conformance-test.local/client-metadata.json';

/** The tool each scenario checks, with its arguments (read from the scenario sources). */
const TOOLS: Readonly<Record<string, { name: string; args: Record<string, unknown> }>> = {
  tools_call: { name: 'add_numbers', args: { a: 5, b: 3 } },
  'elicitation-sep1034-client-defaults': { name: 'test_client_elicitation_defaults', args: {} },
  'sse-retry': { name: 'test_reconnection', args: {} },
};

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

interface Context {
  readonly client_id?: string;
  readonly client_secret?: string;
  /** `auth/client-credentials-jwt`: the PEM key of private_key_jwt. */
  readonly private_key_pem?: string;
  /** `auth/wif-jwt-bearer`: the platform's JWT for the jwt-bearer grant. */
  readonly valid_jwt?: string;
  /** `auth/enterprise-managed-authorization`: the IdP and the person's ID token. */
  readonly idp_issuer?: string;
  readonly idp_client_id?: string;
  readonly idp_id_token?: string;
}

/**
 * The grant a person would configure for each scenario of a grant without a person
 * (docs/sign-in.md#sign-in-grants); every other scenario keeps the browser sign-in.
 */
const GRANTS: Readonly<Record<string, 'client-credentials' | 'jwt-bearer' | 'id-jag'>> = {
  'auth/client-credentials-basic': 'client-credentials',
  'auth/client-credentials-jwt': 'client-credentials',
  'auth/wif-jwt-bearer': 'jwt-bearer',
  'auth/enterprise-managed-authorization': 'id-jag',
};

/**
 * The credential files of the context, as a platform or a person would write them: private to
 * this user, in a folder of their own that the driver removes at its end. Their paths go on the
 * command line, never their contents.
 */
function credentialFiles(context: Context): { args: string[]; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conformance-credentials-'));
  const args: string[] = [];
  const write = (name: string, content: string): string => {
    const path = join(dir, name);
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };
  if (context.private_key_pem !== undefined) {
    args.push('--client-key-file', write('client-key.pem', context.private_key_pem));
  }
  if (context.valid_jwt !== undefined)
    args.push('--assertion-file', write('assertion.jwt', context.valid_jwt));
  if (context.idp_id_token !== undefined)
    args.push('--id-token-file', write('id-token.jwt', context.idp_id_token));
  if (context.idp_issuer !== undefined) args.push('--idp-issuer', context.idp_issuer);
  if (context.idp_client_id !== undefined) args.push('--idp-client-id', context.idp_client_id);
  return { args, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

function readContext(): Context {
  const raw = process.env['MCP_CONFORMANCE_CONTEXT'];
  if (raw === undefined) return {};
  try {
    return JSON.parse(raw) as Context;
  } catch {
    return {};
  }
}

/** The first authorization server of the resource's metadata (RFC 9728 §3, path-suffixed first). */
async function issuerOf(url: URL): Promise<string | undefined> {
  const path = url.pathname === '/' ? '' : url.pathname;
  for (const candidate of [
    `/.well-known/oauth-protected-resource${path}`,
    '/.well-known/oauth-protected-resource',
  ]) {
    const response = await fetch(new URL(candidate, url.origin)).catch(() => undefined);
    if (response?.ok !== true) continue;
    const body = (await response.json().catch(() => ({}))) as { authorization_servers?: unknown };
    const first = Array.isArray(body.authorization_servers)
      ? (body.authorization_servers[0] as unknown)
      : undefined;
    if (typeof first === 'string') return first;
  }
  return undefined;
}

type Schema = { properties?: Record<string, { default?: unknown }> };

const defaultsOf = (schema: Schema | undefined): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(schema?.properties ?? {})
      .filter(([, property]) => property.default !== undefined)
      .map(([name, property]) => [name, property.default]),
  );

const step = (name: string): void => {
  process.stderr.write(`[conformance-driver] ${name}\n`);
};

async function main(): Promise<number> {
  const target = process.argv[2];
  if (target === undefined) {
    process.stderr.write('usage: client.js <server-url>\n');
    return 2;
  }
  const scenario = process.env['MCP_CONFORMANCE_SCENARIO'] ?? '';
  const context = readContext();
  const args = [
    '--redirect-port',
    String(await freePort()),
    '--token-store',
    'memory',
    '--sign-in-timeout',
    '20',
  ];
  // The CIMD scenario checks for the suite's own document URL: a person would configure it so.
  if (scenario === 'auth/basic-cimd') args.push('--client-metadata-url', SUITE_CLIENT_DOCUMENT);
  // The bridge's own log level (its logs never hold tokens, codes or the URL: SECURITY.md).
  const level = process.env['CONFORMANCE_BRIDGE_LOG_LEVEL'];
  if (level !== undefined) args.push('--log-level', level);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  const browser = testBrowserPath();
  env['BROWSER'] = browser;
  env['DBUS_SESSION_BUS_ADDRESS'] = 'unix:path=/nonexistent/bus';
  delete env['MCP_BRIDGE_CLIENT_SECRET'];
  if (context.client_id !== undefined) {
    args.push('--client-id', context.client_id);
    const issuer = await issuerOf(new URL(target));
    if (issuer !== undefined) args.push('--client-issuer', issuer);
    if (context.client_secret !== undefined) env['MCP_BRIDGE_CLIENT_SECRET'] = context.client_secret;
  }
  const grant = GRANTS[scenario];
  const files = grant === undefined ? { args: [], remove: () => undefined } : credentialFiles(context);
  if (grant !== undefined) args.push('--grant', grant, ...files.args);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BRIDGE, ...args, target],
    env,
    stderr: 'inherit',
  });
  const client = new Client(
    { name: 'mcp-bridge-conformance-driver', version: '1.0.0' },
    { capabilities: { elicitation: { form: {}, url: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const params = request.params as { mode?: string; url?: string; requestedSchema?: Schema };
    if (params.mode === 'url' && typeof params.url === 'string') {
      // As VS Code does: an accepted URL opens in the browser (here the scripted one), no shell.
      step('elicitation: url, opened in the scripted browser');
      spawn(browser, [params.url], { stdio: 'ignore', env }).on('error', () => undefined);
      return { action: 'accept' };
    }
    return { action: 'accept', content: defaultsOf(params.requestedSchema) as Record<string, string> };
  });
  try {
    step(`scenario ${scenario}: connect`);
    await client.connect(transport);
    step(`connected: ${JSON.stringify(client.getServerVersion())}`);
    const { tools } = await client.listTools();
    step(`tools/list: ${tools.map((tool) => tool.name).join(', ')}`);
    const wanted =
      TOOLS[scenario] ?? (tools[0] === undefined ? undefined : { name: tools[0].name, args: {} });
    if (wanted !== undefined) {
      const result = await client.callTool({ name: wanted.name, arguments: wanted.args });
      step(`tools/call ${wanted.name}: ${JSON.stringify(result).slice(0, 300)}`);
    }
    return 0;
  } catch (error) {
    step(`failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await client.close().catch(() => undefined);
    files.remove();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 1;
  },
);
