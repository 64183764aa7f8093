/**
 * Interop of the URL form (docs/testing.md#testing-https items 15–17): the real
 * `@modelcontextprotocol/sdk` 1.x `Client` over its `StdioClientTransport` drives the built
 * `mcp-bridge-vscode <url>` in front of the fixture served over HTTPS by `createMcpHandler` with a
 * generated test CA (`--ca-file`), directly and through a CONNECT proxy (`HTTPS_PROXY`): tools,
 * prompts, resources, an input-request round and an unsolicited list change.
 * Needs the build (`npx tsc -p tsconfig.build.json`).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/waitFor.js';
// The test CA comes from bash and openssl (reason in test/helpers/platform.ts); the file's hooks run only with its tests.
import { NO_POSIX_TOOLS } from '../helpers/platform.js';
import { BRIDGE } from '../helpers/bridgeProcess.js';
import { makeTestCerts } from '../edges/http/support.js';
import type { TestCerts } from '../edges/http/support.js';
import { startConnectProxy } from '../fixtures/connectProxy.js';
import type { ConnectProxy } from '../fixtures/connectProxy.js';
import { startHttpFixture } from '../fixtures/httpFixture.js';
import type { HttpFixture } from '../fixtures/httpFixture.js';
import { bridgeTransport } from './interopSupport.js';
import { bridgeEnv } from '../process/httpSupport.js';

const NOTES = 'file:///fixture/notes.txt';

let certs: TestCerts;
let dir: string;
let caFile: string;
let fixture: HttpFixture | undefined;
let proxy: ConnectProxy | undefined;
let client: Client | undefined;

beforeAll(() => {
  certs = makeTestCerts();
  dir = mkdtempSync(join(tmpdir(), 'mcp-bridge-interop-'));
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, certs.caPem);
});
afterAll(() => {
  certs.remove();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  // Closing the client ends the bridge's stdin; the bridge exits by itself.
  await client?.close();
  await fixture?.close();
  await proxy?.close();
  client = fixture = proxy = undefined;
});

/** Connects the SDK client to the bridge in URL form; the URL is an argv item. */
async function connect(
  url: string,
  env: Record<string, string> = {},
): Promise<{ client: Client; stderr: string[] }> {
  const transport = new StdioClientTransport(
    bridgeTransport({
      command: process.execPath,
      args: [BRIDGE, '--ca-file', caFile, url],
      env: bridgeEnv(env) as Record<string, string>,
      stderr: 'pipe',
    }),
  );
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n')));
  client = new Client(
    { name: 'sdk-1x-interop', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    expect(request.params.message).toBe('Tell us about you.');
    return { action: 'accept', content: { name: 'Ada', age: 36 } };
  });
  await client.connect(transport);
  return { client, stderr };
}

/** Everything the acceptance asks for, on one connected client. */
async function exercise(sdk: Client, server: HttpFixture): Promise<void> {
  expect(sdk.getServerVersion()).toMatchObject({ name: 'bridge-fixture-server' });
  expect(sdk.getServerCapabilities()).toMatchObject({ tools: { listChanged: true } });
  // Each tools/list_changed counts; none comes with the first acknowledgment of the listen
  // stream, as the client listed nothing before it.
  let changes = 0;
  const changed = (): Promise<void> => {
    const seen = changes;
    return waitFor(() => changes > seen, { what: 'a tools/list_changed' });
  };
  sdk.setNotificationHandler(ToolListChangedNotificationSchema, () => void (changes += 1));

  const tools = await sdk.listTools();
  expect(tools.tools.map((tool) => tool.name)).toEqual(
    expect.arrayContaining(['echo', 'ask_form', 'add_tool']),
  );
  expect(await sdk.callTool({ name: 'echo', arguments: { text: 'over https' } })).toMatchObject({
    content: [{ type: 'text', text: 'over https' }],
  });
  const prompts = await sdk.listPrompts();
  expect(prompts.prompts.map((prompt) => prompt.name)).toContain('greet');
  expect(await sdk.getPrompt({ name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
    messages: [{ role: 'user', content: { type: 'text', text: 'Hello, Ada.' } }],
  });
  const resources = await sdk.listResources();
  expect(resources.resources.map((resource) => resource.uri)).toContain(NOTES);
  expect(await sdk.readResource({ uri: NOTES })).toMatchObject({
    contents: [{ uri: NOTES, text: 'The notes of the fixture.' }],
  });

  // An input-request round: the upstream asks for a form, the client answers it.
  expect(await sdk.callTool({ name: 'ask_form', arguments: {} })).toMatchObject({
    content: [{ type: 'text', text: 'form: accept {"name":"Ada","age":36}' }],
  });

  // An unsolicited list change, over the listen stream, once the server has it.
  await waitFor(() => server.listenStreams() > 0, { what: 'the listen stream at the server' });
  const next = changed();
  expect(await sdk.callTool({ name: 'add_tool', arguments: {} })).toMatchObject({
    content: [{ text: 'added added_1' }],
  });
  await next;
  expect((await sdk.listTools()).tools.map((tool) => tool.name)).toContain('added_1');
}

describe.skipIf(NO_POSIX_TOOLS)('the SDK 1.x client through the URL form', () => {
  it('works against the HTTPS fixture with --ca-file', async () => {
    fixture = await startHttpFixture({ tls: { key: certs.key, cert: certs.cert } });
    const { client: sdk, stderr } = await connect(fixture.url);
    await exercise(sdk, fixture);
    const listens = fixture.received.filter((request) => request.method === 'subscriptions/listen');
    expect(listens.length).toBeGreaterThanOrEqual(1);
    expect(stderr.filter((line) => line.includes(`127.0.0.1:${fixture!.port}`))).toEqual([]);
  });

  it('works through the CONNECT proxy of HTTPS_PROXY, for a host that is not loopback', async () => {
    fixture = await startHttpFixture({ tls: { key: certs.key, cert: certs.cert } });
    proxy = await startConnectProxy({ targetPort: fixture.port });
    // upstream.test is never resolved by the bridge: the proxy maps every tunnel to the fixture.
    const { client: sdk } = await connect(`https://upstream.test:${fixture.port}/mcp`, {
      HTTPS_PROXY: proxy.url,
    });
    await exercise(sdk, fixture);
    expect(proxy.connects).toBeGreaterThanOrEqual(1);
    expect(new Set(proxy.targets)).toEqual(new Set([`upstream.test:${fixture.port}`]));
    expect(proxy.plainRequests).toBe(0);
    expect(
      fixture.received.every((request) => request.headers.host === `upstream.test:${fixture!.port}`),
    ).toBe(true);
  });
});
