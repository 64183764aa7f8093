/**
 * Where the front end listens (docs/serve.md#serve-loopback). On loopback (`127.0.0.1`, `::1`,
 * `localhost`) it binds both families' addresses on one port, so a client that resolves
 * `localhost` to `::1` first (macOS, Fedora) reaches this server and not another user's socket on
 * `[::1]:<port>`, which would get its bearer token. When the other family's address on that port
 * is taken, the start fails; a machine without that family (EADDRNOTAVAIL) runs on the one, with
 * one line. Any other address is bound alone.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../ports/logger.js';

/** How often port 0 is tried again when the other family holds the port the first one got. */
export const PORT_ZERO_TRIES = 5;

/** The addresses to bind for `host`, the one it names first; one address unless it is loopback's. */
export function bindAddresses(host: string): readonly string[] {
  const name = host.toLowerCase();
  if (name === '127.0.0.1' || name === 'localhost') return ['127.0.0.1', '::1'];
  if (name === '::1' || name === '[::1]') return ['::1', '127.0.0.1'];
  return [host];
}

/** `[v6]` or the address as it is, as in a URL. */
export const shownAddress = (address: string): string => (address.includes(':') ? `[${address}]` : address);

const listenOne = (server: Server, port: number, address: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const failed = (error: Error): void => reject(error);
    server.once('error', failed);
    server.listen({ port, host: address, ipv6Only: address.includes(':') }, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });

const closeAll = (servers: readonly Server[]): Promise<void> =>
  Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))).then(
    () => undefined,
  );

const codeOf = (error: unknown): unknown => (error as { code?: unknown }).code;

/**
 * Binds `make()` servers on every address of `host` with one port; resolves with those that
 * listen and the port. Rejects with the error of the address that failed (its `code`, `address`
 * and `port` as Node gives them).
 */
export async function listenAll(
  make: () => Server,
  host: string,
  port: number,
  logger: Logger,
): Promise<{ readonly servers: readonly Server[]; readonly port: number }> {
  const [first, ...others] = bindAddresses(host);
  for (let attempt = 1; ; attempt += 1) {
    const main = make();
    const chosen = await listenOne(main, port, first!);
    const servers = [main];
    try {
      for (const address of others) {
        const server = make();
        try {
          await listenOne(server, chosen, address);
          servers.push(server);
        } catch (error: unknown) {
          // No address of that family on this machine: nobody else can take it either.
          if (codeOf(error) !== 'EADDRNOTAVAIL' && codeOf(error) !== 'EAFNOSUPPORT') throw error;
          logger.log(
            'serve',
            'info',
            `this machine has no loopback address ${shownAddress(address)}: listening on ${shownAddress(first!)} only`,
          );
        }
      }
      return { servers, port: chosen };
    } catch (error: unknown) {
      await closeAll(servers);
      // Port 0: the other family holds the port the first got; another free port may be free on both.
      if (port !== 0 || codeOf(error) !== 'EADDRINUSE' || attempt >= PORT_ZERO_TRIES) throw error;
    }
  }
}
