/**
 * The name lookups of the HTTP clients (the `lookup` of undici's connect, which Node's `net` and
 * `tls` call for a host that is no literal address):
 *
 * - {@link localhostLookup}, for every direct connection: `localhost` and `*.localhost` are the
 *   loopback addresses without any DNS query (RFC 6761 §6.3), the names the bridge counts as
 *   loopback (plain `http`, never a proxy) thus reach this machine only.
 * - {@link guardedLookup}, for the sign-in's direct connections only: a name that resolves to a
 *   loopback, link-local or private address is refused unless the MCP server's own host is of
 *   that kind (hostClass.ts, SECURITY.md). The check runs on the addresses the connection then
 *   uses, so a name that answers DNS differently a moment later (DNS rebinding) cannot pass it.
 */
import dns from 'node:dns';
import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import type { AddressClass } from './hostClass.js';
import { CLASS_WORDS, allowedFor, classifyAddress, classifyHost, isLocalhostName } from './hostClass.js';

export type Lookup = LookupFunction;
type LookupCallback = Parameters<LookupFunction>[2];

/** Every address of a name, as `dns.lookup` with `all: true` gives them. */
export type Resolve = (hostname: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname, options) =>
  dns.promises.lookup(hostname, { ...options, all: true } as dns.LookupAllOptions);

/** A name lookup the bridge refused; `reason` names no host and no address. */
export class AddressRefusedError extends Error {
  readonly code = 'ERR_SIGN_IN_ADDRESS_REFUSED';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'AddressRefusedError';
  }
}

const familyOf = (options: LookupOptions): 0 | 4 | 6 => {
  const { family } = options;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
};

/** The loopback addresses of a localhost name, IPv4 first, in the family asked for. */
function loopbackAddresses(options: LookupOptions): LookupAddress[] {
  const both: LookupAddress[] = [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
  ];
  const family = familyOf(options);
  return family === 0 ? both : both.filter((entry) => entry.family === family);
}

/** Answers the callback in the form `options.all` asks for. */
function answer(callback: LookupCallback, options: LookupOptions, addresses: LookupAddress[]): void {
  if (options.all === true) {
    callback(null, addresses);
    return;
  }
  const [first] = addresses;
  if (first === undefined) {
    const error: NodeJS.ErrnoException = new Error('no address');
    error.code = 'ENOTFOUND';
    callback(error, '', 0);
    return;
  }
  callback(null, first.address, first.family);
}

/** The addresses of a name: localhost names without DNS, any other through `resolve`. */
const addressesOf = (hostname: string, options: LookupOptions, resolve: Resolve): Promise<LookupAddress[]> =>
  isLocalhostName(hostname) ? Promise.resolve(loopbackAddresses(options)) : resolve(hostname, options);

const asErrno = (error: unknown): NodeJS.ErrnoException =>
  error instanceof Error ? error : new Error('the name lookup failed');

/** The lookup of every direct connection: localhost names are loopback, without DNS. */
export function localhostLookup(resolve: Resolve = systemResolve): Lookup {
  return (hostname, options, callback) => {
    addressesOf(hostname, options, resolve).then(
      (addresses) => answer(callback, options, addresses),
      (error: unknown) => callback(asErrno(error), '', 0),
    );
  };
}

/**
 * The classes the MCP server's host is of: a literal address or a localhost name by itself,
 * another name by the addresses it resolves to (the server the user chose; its own requests go
 * there anyway). Asked only when a sign-in host resolves to a non-public address.
 */
async function mcpClasses(mcpHost: string, resolve: Resolve): Promise<AddressClass[]> {
  const known = classifyHost(mcpHost);
  if (known !== 'name') return [known];
  try {
    const addresses = await resolve(mcpHost, {});
    return addresses.map((entry) => classifyAddress(entry.address) ?? 'public');
  } catch {
    return ['public'];
  }
}

/**
 * The lookup of the sign-in's direct connections for the MCP server on `mcpHost`: the addresses
 * of the name that its class allows; none left is an {@link AddressRefusedError}.
 */
export function guardedLookup(mcpHost: string, resolve: Resolve = systemResolve): Lookup {
  const allowed = async (hostname: string, options: LookupOptions): Promise<LookupAddress[]> => {
    const addresses = await addressesOf(hostname, options, resolve);
    const classed = addresses.map((entry) => ({ entry, kind: classifyAddress(entry.address) ?? 'public' }));
    if (classed.every(({ kind }) => kind === 'public')) return addresses;
    const mcp = await mcpClasses(mcpHost, resolve);
    const kept = classed.filter(({ kind }) => mcp.some((own) => allowedFor(own, kind)));
    if (kept.length > 0) return kept.map(({ entry }) => entry);
    const refused = classed.find(({ kind }) => kind !== 'public')?.kind ?? 'private';
    throw new AddressRefusedError(
      `the host resolves to ${CLASS_WORDS[refused as keyof typeof CLASS_WORDS]}, allowed only when the MCP server is on one`,
    );
  };
  return (hostname, options, callback) => {
    allowed(hostname, options).then(
      (addresses) => answer(callback, options, addresses),
      (error: unknown) => callback(asErrno(error), '', 0),
    );
  };
}
