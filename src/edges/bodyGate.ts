/**
 * Back-pressure for the HTTP upstream (flowControl.ts): the response bodies that are being read
 * (listen streams, SSE and JSON responses) stop being read while the client does not read the
 * bridge's stdout, as the stdout of a stdio upstream does. Unread bytes then wait in the socket
 * and the TCP window, not in the bridge's memory.
 *
 * One gate per HTTP connection (httpUpstream.ts makes it and adds it to the flow control of its
 * client connection; sse.ts tracks each body it reads): two bridges in one process never pause
 * each other's bodies.
 */
import type { Readable } from 'node:stream';
import type { Pausable } from './flowControl.js';

export interface BodyGate extends Pausable {
  /** Tracks a body that is being read; paused at once while the gate is closed. Returns the untrack. */
  track(body: Readable): () => void;
  readonly paused: boolean;
}

export function createBodyGate(): BodyGate {
  const bodies = new Set<Readable>();
  let paused = false;
  return {
    track(body) {
      bodies.add(body);
      if (paused) body.pause();
      return () => void bodies.delete(body);
    },
    pause() {
      paused = true;
      for (const body of bodies) body.pause();
    },
    resume() {
      paused = false;
      for (const body of bodies) body.resume();
    },
    get paused() {
      return paused;
    },
  };
}
