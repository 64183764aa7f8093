/**
 * The envelope of a frame that a consumer routes by request (docs/serve.md#serve-routing).
 */
import type { Frame, RequestId } from '../protocol/jsonrpc.js';

/**
 * A frame for the client with its origin: the id of the client request whose handling made it
 * (its response, its progress, the input requests of its rounds), or undefined for a frame of no
 * request (log messages, listen events, the sign-in's own frames). `createRoutedBridge` emits
 * these; the HTTP front end sends a frame with an origin on that request's stream. The origin is
 * a value beside the frame, not a table keyed by the frame object, so a step that copies or
 * rebuilds frames cannot lose it (docs/architecture.md#architecture-data-flow).
 */
export interface RoutedFrame {
  readonly frame: Frame;
  readonly origin: RequestId | undefined;
}
