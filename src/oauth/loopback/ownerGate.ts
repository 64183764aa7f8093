/**
 * The owner check of the loopback receiver (SECURITY.md, "Shared hosts"): a new connection is
 * passed on only when its client socket belongs to the bridge's own user. Its row in the socket
 * table may not be found at once (never seen on Linux, where the client's socket is established
 * before the server accepts, but cheap to allow for): it is looked up once more after `retryMs`,
 * then refused, because a check that lets unknown connections through would let in anyone who
 * can hide a row. Where the platform has no table the connection passes unchecked.
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
    if (owner.kind === 'uid' && owner.uid === options.uid) return pass(true);
    if (owner.kind === 'missing' && !retried) {
      setTimeout(() => check(socket, pass, true), options.retryMs);
      return;
    }
    socket.destroy();
    options.refused(
      owner.kind === 'uid'
        ? `the loopback receiver refused a connection of another user of this machine (uid ${owner.uid})`
        : 'the loopback receiver refused a connection whose owner it cannot find in /proc/net/tcp',
    );
  };
  return (socket, pass) => check(socket, pass, false);
}
