/**
 * Finds the owner of a loopback connection in the text of Linux's `/proc/net/tcp` or
 * `/proc/net/tcp6` (pure; the file is read by peerOwner.ts). The receiver refuses a connection
 * whose client socket belongs to another user of the machine (SECURITY.md, "Shared hosts").
 *
 * A row is `sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …`; an
 * address is hex: for IPv4 one 32-bit word as the machine stores it (little-endian: 127.0.0.1 is
 * `0100007F`), for IPv6 four such words, and the port is 4 hex digits. The client's own row is the
 * one whose local address is the peer address the receiver sees and whose remote address is the
 * receiver's.
 */

/** One end of a TCP connection. */
export interface Endpoint {
  readonly address: string;
  readonly port: number;
}

/** The 32-bit words of an IPv4 address as the kernel prints them (8 hex digits, upper case). */
function word(bytes: readonly number[], littleEndian: boolean): string {
  const ordered = littleEndian ? [...bytes].reverse() : bytes;
  return ordered
    .map((byte) => byte.toString(16).padStart(2, '0'))
    .join('')
    .toUpperCase();
}

function ipv4Bytes(address: string): number[] | undefined {
  const text = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part) && Number(part) <= 255)) {
    return undefined;
  }
  return parts.map(Number);
}

const port = (value: number): string => value.toString(16).padStart(4, '0').toUpperCase();

/**
 * The `address:port` of an IPv4 endpoint in `/proc/net/tcp` and, as an IPv4-mapped address
 * (`::ffff:a.b.c.d`, a dual-stack client socket), in `/proc/net/tcp6`; undefined for an address
 * that is not IPv4 (the receiver listens on 127.0.0.1 only).
 */
export function endpointHex(
  endpoint: Endpoint,
  littleEndian: boolean,
): { readonly v4: string; readonly v6: string } | undefined {
  const bytes = ipv4Bytes(endpoint.address);
  if (bytes === undefined || !Number.isInteger(endpoint.port)) return undefined;
  const mapped = word([0, 0, 0, 0], littleEndian).repeat(2) + word([0, 0, 0xff, 0xff], littleEndian);
  return {
    v4: `${word(bytes, littleEndian)}:${port(endpoint.port)}`,
    v6: `${mapped}${word(bytes, littleEndian)}:${port(endpoint.port)}`,
  };
}

/**
 * The uid of the row whose local address is `local` and remote address `remote` (both in the
 * form of `endpointHex`, either family), or undefined when the table has no such row.
 */
export function findOwner(table: string, local: string, remote: string): number | undefined {
  const wantLocal = local.toUpperCase();
  const wantRemote = remote.toUpperCase();
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8 || !fields[0]!.endsWith(':')) continue;
    if (fields[1]!.toUpperCase() !== wantLocal || fields[2]!.toUpperCase() !== wantRemote) continue;
    const uid = fields[7]!;
    return /^\d{1,10}$/.test(uid) ? Number(uid) : undefined;
  }
  return undefined;
}
