/**
 * The owner check of the loopback receiver (SECURITY.md, "Shared hosts"): a new connection whose
 * client socket belongs to another user of this machine is destroyed before a byte of it is read.
 * Passed as checked: the bridge's own user, and root (uid 0), who can read the bridge's memory
 * anyway and owns the relays of forwarded ports (WSL, some container set-ups).
 *
 * A row that is not in the table is looked up once more after `retryMs` (the client's socket is
 * established before the server accepts, so this is not expected for a local client). A
 * connection whose row is still in no table that could be read, whole, is refused: its owner is
 * unknown, and letting it through let another user hide a connection (an IPv6 peer, or a row
 * pushed past the part that was read). A forwarded connection whose socket lives in another
 * network namespace (a port forward into a container) is refused too; root's relays are in the
 * table and pass. Where the platform has no table the connection passes unchecked.
 */
import type { Socket } from 'node:net';
import type { PeerOwnerLookup } from './peerOwner.js';

export interface OwnerGateOptions {
  readonly lookup: PeerOwnerLookup;
  /** The uid a connection must have; undefined (Windows): every connection passes unchecked. */
  readonly uid: number | undefined;
  readonly retryMs: number;
  /** The receiver's own address and port (known once it listens). */
  readonly local: () => { readonly address: string; readonly port: number };
  /** Called for each refused connection, with the line to log (the caller logs it once). */
  readonly refused: (text: string) => void;
}

/** Calls `pass(checked)` for a connection that may be read, or destroys it. */
export type OwnerGate = (socket: Socket, pass: (checked: boolean) => void) => void;

export function ownerGate(options: OwnerGateOptions): OwnerGate {
  const check = (socket: Socket, pass: (checked: boolean) => void, retried: boolean): void => {
    if (socket.destroyed) return;
    if (options.uid === undefined) return pass(false);
    const owner = options.lookup(
      { address: socket.remoteAddress ?? '', port: socket.remotePort ?? 0 },
      options.local(),
    );
    if (owner.kind === 'unavailable') return pass(false);
    if (owner.kind === 'missing') {
      if (retried) {
        socket.destroy();
        options.refused('the loopback receiver refused a connection whose owner is in no connection table');
        return;
      }
      setTimeout(() => check(socket, pass, true), options.retryMs);
      return;
    }
    if (owner.uid === options.uid || owner.uid === 0) return pass(true);
    socket.destroy();
    options.refused(
      `the loopback receiver refused a connection of another user of this machine (uid ${owner.uid})`,
    );
  };
  return (socket, pass) => check(socket, pass, false);
}
