/**
 * The short way to a pinned server instance on the legacy path of embedded mode
 * (docs/embedded.md#embedded-selection), for less CPU per call. `serveStdio` owns the era of the connection, `server/discover`, the listen
 * streams and the cancellations; once it has pinned the instance to 2026-07-28 it only passes
 * each other request to the instance's transport and each answer back to the wire, checking
 * both again with the SDK's JSON-RPC schemas on the way (about a third of the CPU of a call).
 * The frames of the legacy path are built by the bridge in this process, so a plain request goes
 * straight to the instance through the `Transport` it was connected with, and its answer straight
 * back; the instance itself still checks and handles the request as before.
 */
import type {
  JSONRPCMessage,
  McpServer,
  Server,
  Transport,
  TransportSendOptions,
} from '@modelcontextprotocol/server';
import { errorResponse, isNotification, isRequest, isResponse } from '../protocol/jsonrpc.js';
import type { Frame, RequestId } from '../protocol/jsonrpc.js';

/**
 * Methods `serveStdio` answers itself or treats apart on a pinned connection: they keep its way.
 * (`initialize` is refused there, `subscriptions/listen` served by the entry.)
 */
const ENTRY_METHODS: ReadonlySet<string> = new Set(['initialize', 'server/discover', 'subscriptions/listen']);

export interface DirectRoute {
  /** Makes the transport `serveStdio` connects `product` with reachable (call before it connects). */
  watch(product: McpServer | Server): void;
  /**
   * Delivers `frame` to the pinned instance at once and returns true, or returns false: the
   * frame must take the way of `serveStdio`, which it is then assumed to take.
   */
  deliver(frame: Frame): boolean;
}

/**
 * Rules:
 * 1. nothing goes the short way before `serveStdio` delivered a request other than
 *    `server/discover` to the instance (the connection is then pinned to 2026-07-28).
 * 2. only requests go the short way, never `initialize`, `server/discover` or
 *    `subscriptions/listen`; notifications (cancellations) always take the way of `serveStdio`.
 * 3. order: after a frame took the way of `serveStdio`, the following frames take it too until
 *    the next turn of the event loop (its pump is then idle: on a pinned connection it awaits only
 *    settled promises), so no frame overtakes an earlier one.
 * 4. the answer to a request that went the short way goes straight to `emit`; every other
 *    message of the instance goes through `serveStdio` (listen events, progress, answers to the
 *    other requests). A cancellation forgets its request.
 * 5. once the instance's transport is closed nothing goes the short way in either direction.
 * 6. a request whose handing over throws gets -32603 `Internal server error` and the error is
 *    reported, as `serveStdio` does.
 */
export function createDirectRoute(
  emit: (frame: Frame) => void,
  onError: (error: Error) => void = () => undefined,
): DirectRoute {
  let instance: Transport | undefined; // the transport the instance is connected with
  let pinned = false;
  let closed = false;
  let viaEntryUntilIdle = false;
  const direct = new Set<RequestId>();

  const endOfTurn = (): void => {
    viaEntryUntilIdle = false;
  };

  const attach = (channel: Transport): Transport => {
    const own: Transport = {
      start: () => channel.start(),
      close: () => channel.close(),
      send: (message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> => {
        const frame = message as unknown as Frame;
        if (direct.size > 0 && isResponse(frame) && frame.id !== null && direct.delete(frame.id)) {
          emit(frame);
          return Promise.resolve();
        }
        return channel.send(message, options);
      },
    };
    if (channel.setProtocolVersion !== undefined) {
      const setVersion = channel.setProtocolVersion.bind(channel);
      own.setProtocolVersion = (version) => setVersion(version);
    }
    channel.onmessage = (message, extra) => {
      const frame = message as unknown as Frame;
      if (isRequest(frame) && frame.method !== 'server/discover') pinned = true;
      own.onmessage?.(message, extra);
    };
    channel.onerror = (error) => own.onerror?.(error);
    channel.onclose = () => {
      closed = true;
      direct.clear(); // a late answer goes through serveStdio, which drops it
      own.onclose?.();
    };
    instance = own;
    return own;
  };

  return {
    watch: (product) => {
      const connect = product.connect.bind(product);
      product.connect = (channel: Transport) => connect(attach(channel));
    },
    deliver: (frame) => {
      const target = instance;
      if (pinned && !closed && !viaEntryUntilIdle && target !== undefined && isRequest(frame)) {
        if (!ENTRY_METHODS.has(frame.method)) {
          direct.add(frame.id);
          try {
            target.onmessage?.(frame);
          } catch (error) {
            // What the pump of `serveStdio` does when handing a request over throws.
            direct.delete(frame.id);
            onError(error instanceof Error ? error : new Error(String(error)));
            emit(errorResponse(frame.id, { code: -32603, message: 'Internal server error' }));
          }
          return true;
        }
      }
      if (isNotification(frame) && frame.method === 'notifications/cancelled') {
        const id: unknown = frame.params?.['requestId'];
        if (typeof id === 'string' || typeof id === 'number') direct.delete(id);
      }
      if (!viaEntryUntilIdle) {
        viaEntryUntilIdle = true;
        setImmediate(endOfTurn);
      }
      return false;
    },
  };
}
