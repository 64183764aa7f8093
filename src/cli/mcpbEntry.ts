/**
 * The server entry of the Claude Desktop bundle, `server/index.js` (docs/install.md#install-mcpb):
 * builds the bridge's command line from the form's values (mcpbConfig.ts) and runs the
 * `mcp-bridge` executable beside it in this process. Bundled by scripts/mcpb.ts.
 */
import { fileURLToPath } from 'node:url';
import { MCPB_ENV, mcpbStart } from './mcpbConfig.js';

const start = mcpbStart(process.env);
if (start.kind === 'error') {
  process.stderr.write(`mcp-bridge: bridge: error: ${start.message}\n`);
  process.exit(2);
}
Object.assign(process.env, start.env);
// Only the variable --header-env names keeps the header's value; the others are not the bridge's.
for (const name of Object.values(MCPB_ENV)) if (name !== MCPB_ENV.headerValue) delete process.env[name];
process.argv = [
  process.argv[0] ?? 'node',
  fileURLToPath(new URL('./mcp-bridge.js', import.meta.url)),
  ...start.argv,
];
const bridge = new URL('./mcp-bridge.js', import.meta.url).href;
await import(bridge);
