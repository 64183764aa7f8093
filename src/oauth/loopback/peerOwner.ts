/**
 * Who owns the client end of a loopback connection: on Linux the uid of its row in
 * `/proc/net/tcp` (or `/proc/net/tcp6` for a dual-stack client socket), parsed by peerTable.ts.
 * Elsewhere, or when the table cannot be read, the answer is `unavailable` and the receiver
 * accepts the connection unchecked (SECURITY.md, "Shared hosts").
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
 * At most this much of each table is read (a row is about 150 bytes: some 28 000 sockets), so a
 * machine with very many sockets costs a bounded read; a row past it counts as missing.
 */
export const MAX_TABLE_BYTES = 4 * 1024 * 1024;

/** The start of a file of `/proc` (whose size reads as 0), up to `MAX_TABLE_BYTES`. */
function readCapped(path: string): string {
  const fd = openSync(path, 'r');
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    while (total < MAX_TABLE_BYTES) {
      const chunk = Buffer.alloc(Math.min(64 * 1024, MAX_TABLE_BYTES - total));
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
    }
    return Buffer.concat(chunks).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/** The lookup of Linux; `unavailable` where `/proc/net/tcp` cannot be read. */
export const procNetOwner: PeerOwnerLookup = (peer, local) => {
  const little = endianness() === 'LE';
  const peerHex = endpointHex(peer, little);
  const localHex = endpointHex(local, little);
  if (peerHex === undefined || localHex === undefined) return { kind: 'missing' };
  let table: string;
  try {
    table = readCapped('/proc/net/tcp');
  } catch {
    return { kind: 'unavailable' };
  }
  let uid = findOwner(table, peerHex.v4, localHex.v4);
  if (uid === undefined) {
    try {
      uid = findOwner(readCapped('/proc/net/tcp6'), peerHex.v6, localHex.v6);
    } catch {
      // No IPv6 on this machine: the IPv4 table was the only place to look.
    }
  }
  return uid === undefined ? { kind: 'missing' } : { kind: 'uid', uid };
};
