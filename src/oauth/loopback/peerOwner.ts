/**
 * Who owns the client end of a loopback connection: on Linux the uid of its row in
 * `/proc/net/tcp` (or `/proc/net/tcp6` for a dual-stack client socket), parsed by peerTable.ts.
 * Elsewhere, or when the table cannot be read, the answer is `unavailable` and the receiver
 * accepts the connection unchecked; a connection that is in no table that could be read is
 * `missing`, and refused (SECURITY.md, "Shared hosts").
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { endpointHex, findOwner } from './peerTable.js';
import type { Endpoint } from './peerTable.js';

/** The answer of a lookup: the owner's uid, no row for the connection, or no table to ask. */
export type PeerOwner =
  | { readonly kind: 'uid'; readonly uid: number }
  | { readonly kind: 'missing' }
  | { readonly kind: 'unavailable' };

/** Looks up the owner of the client socket `peer` connected to the receiver's `local` end. */
export type PeerOwnerLookup = (peer: Endpoint, local: Endpoint) => PeerOwner;

/**
 * Finds the row of `local` → `remote` in a table of `/proc` (whose size reads as 0), read whole in
 * pieces: another user who opens tens of thousands of sockets cannot push the row out of reach
 * (SECURITY.md, "Shared hosts"). Only the unfinished last line of a piece is kept between pieces.
 */
export function scanTable(path: string, local: string, remote: string): number | undefined {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(64 * 1024);
    let rest = '';
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) return findOwner(rest, local, remote);
      const text = rest + chunk.toString('latin1', 0, read);
      const end = text.lastIndexOf('\n');
      rest = text.slice(end + 1);
      const uid = findOwner(text.slice(0, end + 1), local, remote);
      if (uid !== undefined) return uid;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The lookup of Linux; `unavailable` where `/proc/net/tcp` cannot be read, `missing` when the row
 * is in neither table (`/proc/net/tcp6` absent: a machine without IPv6, nothing more to read).
 */
export const procNetOwner: PeerOwnerLookup = (peer, local) => {
  const little = endianness() === 'LE';
  const peerHex = endpointHex(peer, little);
  const localHex = endpointHex(local, little);
  if (peerHex === undefined || localHex === undefined) return { kind: 'missing' };
  let uid: number | undefined;
  try {
    uid = scanTable('/proc/net/tcp', peerHex.v4, localHex.v4);
  } catch {
    return { kind: 'unavailable' };
  }
  if (uid === undefined) {
    try {
      uid = scanTable('/proc/net/tcp6', peerHex.v6, localHex.v6);
    } catch {
      // No IPv6 on this machine: the IPv4 table was the only place to look.
    }
  }
  return uid === undefined ? { kind: 'missing' } : { kind: 'uid', uid };
};
