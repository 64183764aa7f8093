/**
 * The upstream of the conformance runner's serve face (run.ts): a server of revision 2026-07-28
 * only (`legacy: 'reject'`) over stdio, with the tools, resources and prompts the server
 * scenarios of `@modelcontextprotocol/conformance` call, so that the suite can run straight at
 * `mcp-bridge serve -- node upstream.js` (docs/serve.md#serve-sessions).
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { registerConformanceContent } from './upstreamContent.js';
import { registerConformanceTools } from './upstreamTools.js';

serveStdio(
  () => {
    const server = new McpServer(
      { name: 'mcp-bridge-conformance-upstream', version: '0.0.0' },
      {
        capabilities: {
          tools: { listChanged: false },
          prompts: { listChanged: false },
          resources: { listChanged: false, subscribe: true },
          logging: {},
          completions: {},
        },
      },
    );
    registerConformanceTools(server);
    registerConformanceContent(server);
    return server;
  },
  { legacy: 'reject', onerror: (error) => process.stderr.write(`conformance upstream: ${error.message}\n`) },
);
