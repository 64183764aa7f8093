/**
 * The receiver's listen on `127.0.0.1:<port>` (docs/sign-in.md#sign-in-receiver): exclusive (no
 * handle sharing with cluster workers; Node never sets SO_REUSEPORT), and a port it cannot take is
 * `redirect_port_unavailable` with one line that says what the user can do.
 */
import type { AddressInfo, Server } from 'node:net';
import type { Logger } from '../../ports/logger.js';
import { BridgeError } from '../../protocol/bridgeError.js';

const SCOPE = 'oauth';

/** Listens on `host:port` (0: a free port); resolves with the port taken. */
export async function listenReceiver(
  server: Server,
  host: string,
  port: number,
  logger: Logger,
): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    const why = error.code ?? error.message;
    logger.log(SCOPE, 'err', `the loopback receiver cannot listen on port ${port}: ${why}`);
    logger.log(
      SCOPE,
      'err',
      error.code === 'EADDRINUSE'
        ? `Another program uses the redirect port ${port}. Close it, or give the bridge another port with --redirect-port.`
        : `The bridge cannot listen on the redirect port ${port}. Give the bridge another port with --redirect-port.`,
    );
    throw new BridgeError('redirect_port_unavailable', { detail: `port ${port}: ${why}`, cause: error });
  });
  server.on('error', (error: NodeJS.ErrnoException) =>
    logger.log(SCOPE, 'warn', `the loopback receiver failed: ${error.code ?? error.message}`),
  );
  return (server.address() as AddressInfo).port;
}
