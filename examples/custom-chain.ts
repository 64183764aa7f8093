/**
 * A product's own bridge: the standard chain of `serveStdio` (decoding, the bridge of a profile,
 * back-pressure, the watchdog and the exit codes) with a tool allow-list and a tracing tap around
 * the bridge.
 *
 *   node dist/examples/custom-chain.js -- <upstream command> [args...]
 *
 * The trace goes to stderr, one line per frame: `trace: in <kind> <method> <id>` for each client
 * line, `trace: out <kind> <method> <id>` for each frame to the client. It names methods and ids
 * only, never contents (SECURITY.md: frames may hold secrets).
 */
import { tap } from 'rxjs';
import { genericProfile } from 'mcp-bridge-sdk';
import type { Frame, Inbound } from 'mcp-bridge-sdk';
import { serveStdio } from 'mcp-bridge-sdk/node';
import { allowTools } from './allowTools.js';

/** The tools this product lets its users call. */
const ALLOWED_TOOLS = ['echo', 'add'];

const describeFrame = (frame: Frame): string => {
  const kind = 'method' in frame ? ('id' in frame ? 'request' : 'notification') : 'response';
  const method = 'method' in frame ? frame.method : '-';
  const id = 'id' in frame ? String(frame.id) : '-';
  return `${kind} ${method} ${id}`;
};

const trace = (direction: 'in' | 'out', text: string): void => {
  process.stderr.write(`trace: ${direction} ${text}\n`);
};

const separator = process.argv.indexOf('--');
const argv = separator < 0 ? [] : process.argv.slice(separator + 1);
if (argv.length === 0) {
  process.stderr.write('usage: custom-chain -- <upstream command> [args...]\n');
  process.exit(2);
}

const code = await serveStdio(
  genericProfile,
  { kind: 'command', argv },
  {
    compose: (bridge) => (inbound$) =>
      inbound$.pipe(
        tap((inbound: Inbound) =>
          trace('in', inbound.kind === 'frame' ? describeFrame(inbound.frame) : inbound.kind),
        ),
        allowTools({ tools: ALLOWED_TOOLS }, bridge),
        tap((frame) => trace('out', describeFrame(frame))),
      ),
  },
);
process.exit(code);
