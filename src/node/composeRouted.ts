/**
 * `compose` (BridgeProcessOptions.compose) around a bridge whose frames carry their origin
 * (RoutedFrame), for the HTTP front end (docs/serve.md#serve-routing). `compose` sees and returns
 * plain frames, as under serveStdio; each frame it returns gets the origin of the bridge frame
 * whose delivery it was returned in, so a step that copies, rebuilds, filters or adds frames in
 * that turn (`map`, `filter`, `tap`, `mergeMap` to a synchronous source) keeps the routing. A
 * frame it returns later (after a `delay`, from a timer of its own) has no origin: it goes to
 * the GET stream, as a frame of no request does.
 */
import { Observable, map } from 'rxjs';
import type { OperatorFunction } from 'rxjs';
import type { RoutedFrame } from '../ports/routedFrame.js';
import type { Frame, RequestId } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';

/** The product's chain of operators around the bridge (BridgeProcessOptions.compose). */
export type Compose = (bridge: OperatorFunction<Inbound, Frame>) => OperatorFunction<Inbound, Frame>;

/** The routed bridge wrapped in `compose`; without `compose`, the routed bridge itself. */
export function composeRouted(
  routed: OperatorFunction<Inbound, RoutedFrame>,
  compose: Compose | undefined,
): OperatorFunction<Inbound, RoutedFrame> {
  if (compose === undefined) return routed;
  // The origin of the bridge frame being delivered now. JavaScript runs one delivery at a time,
  // so one cell serves every session; it is set around each delivery and restored after it,
  // which keeps it right when a delivery starts another one inside it.
  let current: RequestId | undefined;
  const frames: OperatorFunction<Inbound, Frame> = (inbound$) =>
    new Observable<Frame>((subscriber) =>
      routed(inbound$).subscribe({
        next: ({ frame, origin }) => {
          const outer = current;
          current = origin;
          try {
            subscriber.next(frame);
          } finally {
            current = outer;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
  const composed = compose(frames);
  return (inbound$) => composed(inbound$).pipe(map((frame) => ({ frame, origin: current })));
}
