/**
 * One shim's session attached to the upstream of its key (docs/shared.md#shared-sessions): the
 * session's own stderr logger over the socket, the upstream of the table (its command started at
 * the hello), the session run by runSharedSession on a view of that upstream per `initialize`
 * (with the known discover result, docs/shared.md#shared-warm; the rule of a failed attempt,
 * sharedAttempt.ts), and the release of the upstream when the session ended.
 */
import type { Socket } from 'node:net';
import { TO_SHIM } from '../edges/sharedSocket/records.js';
import type { Logger } from '../ports/logger.js';
import { createStderrLogger } from './log.js';
import { attemptConnect } from './sharedAttempt.js';
import { finish, writer } from './sharedConnection.js';
import type { EarlyInput } from './sharedConnection.js';
import { keyPrefix } from './sharedKey.js';
import type { SessionPlan } from './sharedPlan.js';
import { runSharedSession } from './sharedSession.js';
import type { Entry, UpstreamTable } from './sharedTable.js';

/**
 * Output a shim may leave unread when the next frame comes; beyond, its session ends (the upstream
 * is shared: it cannot wait).
 */
const MAX_UNREAD_BYTES = 16 * 1024 * 1024;

/** Runs the session of `plan` on `socket` until it ends; the exit record closes the connection. */
export async function attachSession(
  socket: Socket,
  plan: SessionPlan,
  input: EarlyInput,
  table: UpstreamTable,
  hostLogger: Logger,
): Promise<void> {
  const write = writer(socket);
  const logger = createStderrLogger(
    plan.logLevel,
    (line) => write(`${String.fromCharCode(TO_SHIM.stderr)}${line}`),
    plan.program,
  );
  for (const warning of plan.warnings) logger.log(plan.session.scope, 'warn', warning);
  let entry: Entry;
  try {
    entry = await table.entryFor(plan);
  } catch (error) {
    hostLogger.log('shared', 'err', `an upstream could not be set up: ${(error as Error).message}`);
    finish(socket, 1);
    return;
  }
  if (entry.signIn?.ok === false) {
    logger.log(plan.session.scope, 'err', entry.signIn.message);
    table.drop(entry);
    finish(socket, 2);
    return;
  }
  if (socket.destroyed) return;
  // The switch's lines, as the stdio bridge writes them to its stderr (docs/shared.md#shared-telemetry).
  for (const line of entry.telemetry.lines) logger.log(line.scope, line.level, line.text);
  if (entry.grace !== undefined) clearTimeout(entry.grace);
  entry.grace = undefined;
  entry.sessions += 1;
  entry.loggers.add(logger);
  // The key's command starts at the hello, if none runs, as the stdio bridge starts its command
  // before `initialize` (docs/shared.md#shared-lifecycle, README "Fast start").
  entry.prestart();
  // The sign-in line, as the stdio bridge writes it to its own stderr (docs/shared.md#shared-signin).
  const stderrLine = (line: string): void => write(`${String.fromCharCode(TO_SHIM.stderr)}${line}\n`);
  entry.stderr.add(stderrLine);
  // At debug: a session without trouble writes no line at the default level, as the stdio
  // bridge; and a client's stderr never names the upstream URL (docs/logging.md#logging-hygiene),
  // not even its origin: `shared status` shows that to the user who asks.
  const joined = plan.upstream.kind === 'url' ? 'url' : entry.summary;
  logger.log('bridge', 'debug', `joined shared bridge ${keyPrefix(entry.key)} (${joined})`);
  const known = (): void =>
    logger.log('bridge', 'debug', 'server/discover: answered from the known result of the shared upstream');
  const session = runSharedSession(
    {
      input$: input.input$,
      stop$: input.stop$,
      write: (line) => {
        // What the shim left unread before this frame counts, not the frame itself: one frame
        // may be larger than the bound (up to --max-response-bytes), as on the stdio bridge's
        // stdout (docs/shared.md#shared-sessions).
        if (socket.writableLength > MAX_UNREAD_BYTES) {
          socket.destroy();
          return;
        }
        write(String.fromCharCode(TO_SHIM.frame));
        if (typeof line === 'string') write(line);
        else for (const piece of line) write(piece);
      },
    },
    {
      ...plan.session,
      // docs/shared.md#shared-lifecycle: a failed or cancelled initialize's upstream that serves
      // no other session stops at once.
      connect: attemptConnect(entry.shared, (view) => entry.known.wrap(view, known)),
      logger,
      telemetry: entry.telemetry.forSession(),
      ...(entry.signIn?.ok === true ? { signIn: entry.signIn } : {}),
    },
  );
  socket.once('close', session.end);
  const code = await session.code;
  socket.off('close', session.end);
  await table.release(entry, plan.graceMs);
  entry.loggers.delete(logger);
  entry.stderr.delete(stderrLine);
  finish(socket, code);
}
