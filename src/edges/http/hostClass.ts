/**
 * Which kind of network an address or host name is on (pure): the rule of the sign-in that keeps a
 * remote server from aiming the bridge's requests at local services (SECURITY.md, "Which hosts the
 * sign-in may talk to").
 *
 * - `loopback`: `127.0.0.0/8`, `::1`, the unspecified addresses `0.0.0.0/8` and `::` (a connect to
 *   them reaches the machine itself), and the names `localhost` and `*.localhost` (RFC 6761 §6.3).
 * - `link-local`: `169.254.0.0/16` (where cloud metadata services answer) and `fe80::/10`.
 * - `private`: `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, the shared address space
 *   `100.64.0.0/10` of carrier-grade NAT and of overlay networks (RFC 6598), the unique local
 *   `fc00::/7` and the old site-local `fec0::/10`.
 * - `public`: every other address; a host name that is no literal address and no localhost name
 *   is `name` (what it resolves to decides).
 *
 * An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, which the URL parser writes `::ffff:a00:1`) is
 * the IPv4 address it maps.
 */
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'loopback' | 'link-local' | 'private' | 'public';
export type HostClass = AddressClass | 'name';

type Family = 'ipv4' | 'ipv6';

const listOf = (subnets: readonly (readonly [string, number, Family])[]): BlockList => {
  const list = new BlockList();
  for (const [address, prefix, family] of subnets) list.addSubnet(address, prefix, family);
  return list;
};

// BlockList checks an IPv4-mapped IPv6 address against the IPv4 subnets too.
const LOOPBACK = listOf([
  ['127.0.0.0', 8, 'ipv4'],
  ['0.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['::', 128, 'ipv6'],
]);
const LINK_LOCAL = listOf([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
const PRIVATE = listOf([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['fc00::', 7, 'ipv6'],
  ['fec0::', 10, 'ipv6'],
]);

/** The host of a URL without brackets and a final dot, in lower case. */
export const bareHost = (hostname: string): string => {
  const lower = hostname.toLowerCase().replace(/\.$/, '');
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
};

/** `localhost` and the names under it, which RFC 6761 §6.3 reserves for the loopback addresses. */
export const isLocalhostName = (hostname: string): boolean => {
  const host = bareHost(hostname);
  return host === 'localhost' || host.endsWith('.localhost');
};

/** The class of a literal IPv4 or IPv6 address; undefined for anything else. */
export function classifyAddress(address: string): AddressClass | undefined {
  const host = bareHost(address);
  const family = isIP(host);
  if (family === 0) return undefined;
  const type: Family = family === 4 ? 'ipv4' : 'ipv6';
  if (LOOPBACK.check(host, type)) return 'loopback';
  if (LINK_LOCAL.check(host, type)) return 'link-local';
  if (PRIVATE.check(host, type)) return 'private';
  return 'public';
}

/** The class of the host of a URL: a literal address, a localhost name, or another name. */
export function classifyHost(hostname: string): HostClass {
  if (isLocalhostName(hostname)) return 'loopback';
  return classifyAddress(hostname) ?? 'name';
}

/**
 * True when the sign-in of an MCP server on `mcp` may talk to an address of class `target`: a
 * public address always; a loopback MCP server (a local test server) every address; a private
 * one (an intranet server, a corporate authorization server) private and public ones; a
 * link-local one link-local and public ones.
 */
export function allowedFor(mcp: AddressClass, target: AddressClass): boolean {
  if (target === 'public' || mcp === 'loopback') return true;
  return target === mcp;
}

/** The words of a refused class, for the reason of a refusal (never the address itself). */
export const CLASS_WORDS: Readonly<Record<Exclude<AddressClass, 'public'>, string>> = Object.freeze({
  loopback: 'a loopback address',
  'link-local': 'a link-local address',
  private: 'a private address',
});
