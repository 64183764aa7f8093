/**
 * A server author's own MCP server, served to clients of both revisions on one stdio connection
 * with `serveDualEra` (`mcp-bridge-sdk/embed`, docs/embedded.md#embedded-selection): a 2025-11-25 client
 * (VS Code) gets the bridge's front end in process, a 2026-07-28 client the server itself.
 *
 *   node dist/examples/embedded-server.js
 */
import { McpServer, fromJsonSchema } from '@modelcontextprotocol/server';
import { serveDualEra } from 'mcp-bridge-sdk/embed';

/** One server per connection, as `serveDualEra` asks: the greeting server of this example. */
function createGreetingServer(): McpServer {
  const server = new McpServer(
    { name: 'greeting-server', version: '1.0.0' },
    { capabilities: { tools: {} } },
  );
  server.registerTool(
    'greet',
    {
      description: 'Greets someone by name.',
      inputSchema: fromJsonSchema<{ name: string }>({
        type: 'object',
        properties: { name: { type: 'string' } },
        required: ['name'],
      }),
    },
    ({ name }) => ({ content: [{ type: 'text', text: `Hello, ${name}!` }] }),
  );
  return server;
}

const { era, closed } = serveDualEra(createGreetingServer, { name: 'greeting-server', version: '1.0.0' });
// Diagnostics go to stderr: stdout carries only JSON-RPC.
void era.then((selected) => process.stderr.write(`greeting-server: era ${selected}\n`));
closed.then(
  () => process.exit(0),
  () => process.exit(1),
);
