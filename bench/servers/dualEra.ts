/**
 * The fixture served dual-era in-process by the SDK: `serveStdio(factory, { legacy: 'serve' })`.
 * A legacy client that opens with `initialize` gets a 2025-11-25 instance; input rounds go
 * through the SDK's own legacy shim (real elicitation requests).
 *
 *   node dist/bench/servers/dualEra.js [--many-tools N]
 */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createFixtureServer } from '../../test/fixtures/fixtureFactory.js';

const at = process.argv.indexOf('--many-tools');
const manyTools = at === -1 ? 0 : Number(process.argv[at + 1] ?? '0');
serveStdio(createFixtureServer({ manyTools }), { legacy: 'serve', onerror: () => undefined });
process.stdin.once('end', () => process.exit(0));
