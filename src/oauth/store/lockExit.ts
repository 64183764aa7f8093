/**
 * The lock files this process holds now, by path, with their owner ids. A bridge that exits
 * while it holds one (the end of stdin, SIGTERM and the watchdog all end in `process.exit`, which
 * runs no `finally` of the work under the lock) deletes it at its `exit` event, synchronously and
 * only if it still holds our owner id; a waiter then need not wait for the stale time. A killed
 * process (SIGKILL) runs nothing: the pid check of the waiters covers it on the same host.
 *
 * SIGTERM, SIGINT and SIGHUP end a process without its `exit` event when nothing handles them
 * (`serve`, a sign-in that waits for the browser), so each deletes the held files too
 * (SECURITY.md, docs/sign-in.md#sign-in-lock). When no other handler of the signal is there, the
 * signal is then raised again without ours, so the process ends as it would have.
 */
import { deleteIfOwnedSync } from './lockFile.js';

const heldFiles = new Map<string, string>();
let exitHook = false;
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

function deleteHeldFiles(): void {
  for (const [held, owner] of heldFiles) deleteIfOwnedSync(held, owner);
  heldFiles.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  deleteHeldFiles();
  if (process.listenerCount(signal) > 1) return; // another handler stops the process its way
  for (const name of STOP_SIGNALS) process.off(name, onStopSignal);
  exitHook = false;
  process.kill(process.pid, signal);
}

/** Deletes `file` (while it holds `owner`) when the process exits or gets a stop signal. */
export function releaseAtExit(file: string, owner: string): void {
  heldFiles.set(file, owner);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', deleteHeldFiles);
  for (const name of STOP_SIGNALS) process.on(name, onStopSignal);
}

/** The hold of `file` ended: nothing to delete at exit any more. */
export function forgetAtExit(file: string): void {
  heldFiles.delete(file);
}
