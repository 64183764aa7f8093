/**
 * The start-up floor of any Node bridge in front of a child process (start-up target):
 * a node process that does nothing but start `node <script> [args]` on its own stdin and stdout
 * and wait for it. Spawn to `initialize` result is then node's own start plus the child's whole
 * start, which a bridge can overlap with its own module loading but never with node's boot.
 *
 *   node dist/bench/servers/spawner.js <script> [args...]
 */
import { spawn } from 'node:child_process';

const [script, ...args] = process.argv.slice(2);
if (script === undefined) {
  process.stderr.write('usage: spawner.js <script> [args...]\n');
  process.exit(2);
}
const child = spawn(process.execPath, [script, ...args], { stdio: 'inherit' });
child.once('exit', (code) => process.exit(code ?? 1));
