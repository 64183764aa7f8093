/**
 * A frame for the client with its origin: the id of the client request whose handling made it
 * (its response, its progress, the input requests of its rounds), or undefined for a frame of
 * no request (log messages, listen events, the sign-in's own frames). The bridge emits these
 * where a consumer routes by request (createRoutedBridge); the HTTP front end sends a frame with
 * an origin on that request's stream (docs/serve.md#serve-routing). The origin is a value beside
 * the frame, so a step that copies or rebuilds frames cannot lose it (docs/architecture.md#architecture-data-flow).
 */
import type { Frame, RequestId } from '../protocol/jsonrpc.js';

export interface RoutedFrame {
  readonly frame: Frame;
  readonly origin: RequestId | undefined;
}
