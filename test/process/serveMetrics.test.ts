/**
 * `mcp-bridge serve --metrics` (docs/observability.md#observability-metrics): `GET /metrics` in
 * the Prometheus text format on the same listener, with the token rules of `/mcp`, without any
 * OTEL_* variable; after one tools/call with one input round its text has the duration
 * histogram's count 1, the rounds 2 and the input requests 1, and none of the secrets. Needs the
 * build (`npm run build`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as SdkClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { killAllPeers } from '../helpers/rawPeer.js';
import { findSecrets } from '../helpers/secretScan.js';
import { POST_HEADERS, raw, startServe } from './serveSupport.js';

afterAll(killAllPeers);

const TOKEN = 'metrics-test-token-0123456789abcdef';
const ANSWER = 'form-answer-3b7c';

/** The environment of the serve: no OTEL_* variable, so only --metrics turns metrics on. */
const envWithoutOtel = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));

describe('mcp-bridge serve --metrics', () => {
  it('serves the Prometheus text with the token, after one call with one input round', async () => {
    const serve = await startServe(['--metrics', '--max-body-bytes', '4096'], {
      ...envWithoutOtel(),
      MCP_BRIDGE_SERVE_TOKEN: TOKEN,
    });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const refused = await raw(serve.port, 'GET', {}, undefined, '/metrics');
    expect(refused.status).toBe(401);
    const post = await raw(serve.port, 'POST', auth, '', '/metrics');
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');

    const answering = (client: Client) =>
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: ANSWER } }));
    const { client } = await connectClientWithToken(serve.url, answering);
    const result = await client.callTool({ name: 'ask_form', arguments: {} });
    expect(result.content).toEqual([{ type: 'text', text: `form: accept {"name":"${ANSWER}"}` }]);
    await client.close();

    const tooLarge = await raw(serve.port, 'POST', { ...auth, ...POST_HEADERS }, 'x'.repeat(5000));
    expect(tooLarge.status).toBe(413);

    const scrape = await raw(serve.port, 'GET', auth, undefined, '/metrics');
    expect(scrape.status).toBe(200);
    expect(scrape.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = scrape.body;
    const lines = text.split('\n');
    const scope = 'otel_scope_name="mcp-bridge-sdk"';
    const call = `mcp_method_name="tools/call",network_transport="tcp",gen_ai_tool_name="ask_form",mcp_protocol_version="2025-11-25",${scope}`;
    const value = (prefix: string): string | undefined =>
      lines
        .find((line) => line.startsWith(prefix))
        ?.split(' ')
        .at(-1);
    expect(lines).toContain('# TYPE mcp_server_operation_duration histogram');
    expect(lines).toContain('# UNIT mcp_server_operation_duration s');
    expect(value(`mcp_server_operation_duration_count{${call}`)).toBe('1');
    expect(value(`mcp_bridge_rounds_total{${call}`)).toBe('2');
    expect(
      value(
        `mcp_bridge_input_requests_total{mcp_method_name="elicitation/create",mcp_bridge_input_kind="elicitation",${scope}`,
      ),
    ).toBe('1');
    expect(
      value(
        `mcp_client_operation_duration_count{mcp_method_name="tools/call",gen_ai_tool_name="ask_form",mcp_protocol_version="2026-07-28",${scope}`,
      ),
    ).toBe('2');
    expect(value(`mcp_bridge_limit_refusals_total{mcp_bridge_limit="max_body_bytes",${scope}`)).toBe('1');
    const findings = findSecrets({ lines, stderr: [] }, [TOKEN, ANSWER], { streams: ['stdout'] });
    expect(findings).toEqual([]);
  });
});

/** An SDK 1.x client of `url` that sends the serve token and takes form elicitations. */
async function connectClientWithToken(url: string, setup: (client: Client) => void) {
  const client = new SdkClient(
    { name: 'metrics-test', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
  );
  setup(client);
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
  });
  await client.connect(transport);
  return { client };
}
