/**
 * The in-memory link of embedded mode (docs/embedded.md#embedded-selection): one connection of a server
 * factory, served by the SDK's `serveStdio` over a transport whose wire is a pair of
 * observables instead of a pipe. Both paths use it, so the server sees exactly what a stdio
 * child would see: `serveStdio` owns the era of the connection, the listen streams and
 * `server/discover`.
 */
import type { JSONRPCMessage, McpServerFactory, Transport } from '@modelcontextprotocol/server';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Observable } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { Frame } from '../protocol/jsonrpc.js';
import { createDirectRoute } from './directRoute.js';
import type { DirectRoute } from './directRoute.js';

export interface ServerLinkConfig {
  /** Out-of-band reports of `serveStdio`: rejected 2025-era requests, discarded messages. */
  readonly onError?: (error: Error) => void;
  /**
   * The frames are built by the bridge in this process: once the connection is pinned, plain
   * requests and their answers skip the checks of `serveStdio` (src/embed/directRoute.ts).
   */
  readonly direct?: boolean;
}

/**
 * Serves one connection of `factory` (2026-07-28 only: `legacy: 'reject'`).
 *
 * ```text
 * to server:   -a--b------|
 * from server: ----A---B-n---   (n = a listen event; the end of the input ends nothing)
 * ```
 *
 * Rules:
 * 1. each frame reaches the server in order, on a later microtask, as a line from a pipe would:
 *    the server never runs inside the stack of the code that sent the frame.
 * 2. every message the server writes is emitted at once, in order.
 * 3. the output completes when the server closes its side of the connection.
 * 4. the end of the input ends nothing: the caller decides when the connection stops.
 * 5. unsubscribing closes the connection: the instance closes, requests in flight are aborted,
 *    and whatever it still writes is dropped.
 */
export function linkServer(
  factory: McpServerFactory,
  config: ServerLinkConfig = {},
): OperatorFunction<Frame, Frame> {
  return (toServer$) =>
    new Observable<Frame>((subscriber) => {
      let open = true;
      const transport: Transport = {
        start: () => Promise.resolve(),
        send: (message) => {
          if (open) subscriber.next(message as unknown as Frame);
          return Promise.resolve();
        },
        close: () => {
          if (open) {
            open = false;
            transport.onclose?.();
            subscriber.complete();
          }
          return Promise.resolve();
        },
      };
      const route: DirectRoute | undefined =
        config.direct === true
          ? createDirectRoute(
              (frame) => {
                if (open) subscriber.next(frame);
              },
              (error) => config.onError?.(error),
            )
          : undefined;
      const handle = serveStdio(ownCopy(factory, route), {
        legacy: 'reject',
        transport,
        ...(config.onError === undefined ? {} : { onerror: config.onError }),
      });
      const input = toServer$.subscribe({
        next: (frame) =>
          queueMicrotask(() => {
            if (open && route?.deliver(frame) !== true)
              transport.onmessage?.(frame as unknown as JSONRPCMessage);
          }),
        error: (error: unknown) => subscriber.error(error),
      });
      return () => {
        input.unsubscribe();
        if (!open) return;
        open = false;
        handle.close().catch((error: unknown) => config.onError?.(toError(error)));
      };
    });
}

const toError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));

/**
 * The SDK's `serveStdio` tells an `McpServer` from a low-level `Server` with `instanceof`, so an
 * `McpServer` of another copy of `@modelcontextprotocol/server` (a monorepo, `npm link`, a bundled
 * server) was served as if it were a `Server`, and every request failed. An
 * `McpServer` that is not of the bridge's copy is served through its own low-level `server`,
 * which is what `serveStdio` does with an `McpServer` of its copy: no reliance on module identity.
 */
function ownCopy(factory: McpServerFactory, route: DirectRoute | undefined): McpServerFactory {
  return async (ctx) => {
    const product = await factory(ctx);
    const served = product instanceof McpServer || !isForeignMcpServer(product) ? product : product.server;
    route?.watch(served);
    return served;
  };
}

/** An `McpServer` by shape: `registerTool` and a low-level `server` that connects. */
function isForeignMcpServer(value: unknown): value is McpServer {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { registerTool?: unknown; server?: { connect?: unknown } };
  return typeof candidate.registerTool === 'function' && typeof candidate.server?.connect === 'function';
}
