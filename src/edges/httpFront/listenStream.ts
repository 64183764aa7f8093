/**
 * The GET stream of one session (docs/serve.md#serve-responses): everything no request caused,
 * kept in a bounded buffer while no GET is open; a newer GET replaces an open one.
 */
import type { Logger } from '../../ports/logger.js';
import type { Frame } from '../../protocol/jsonrpc.js';
import type { EventStream } from './streams.js';

/** The GET side of one session. */
export interface ListenStream {
  /** A frame for the GET stream, or for the buffer while none is open. */
  send(frame: Frame): void;
  /** A new GET stream: it replaces the open one and gets the buffer first. */
  attach(stream: EventStream): void;
  /** Whether `stream` is the open GET stream (it was not replaced and is not closed). */
  isCurrent(stream: EventStream): boolean;
  /** Whether a GET stream is open. */
  readonly open: boolean;
  /** Bytes of the frames in the buffer (as JSON), counted in the session's unread output. */
  readonly waitingBytes: number;
  /** Ends the open stream and drops the buffer (the session ended). */
  end(): void;
}

export function createListenStream(maxBufferedFrames: number, logger: Logger): ListenStream {
  const buffer: Frame[] = [];
  let current: EventStream | undefined;
  let dropped = 0;
  let waitingBytes = 0;
  const size = (frame: Frame): number => JSON.stringify(frame).length;
  const isOpen = (): boolean => current !== undefined && !current.closed;
  return {
    send(frame) {
      if (current !== undefined && !current.closed) {
        current.send(frame);
        return;
      }
      buffer.push(frame);
      waitingBytes += size(frame);
      if (buffer.length <= maxBufferedFrames) return;
      waitingBytes -= size(buffer.shift()!);
      if (dropped++ === 0) {
        logger.log(
          'serve',
          'warn',
          `a session without a GET stream had more than ${maxBufferedFrames} frames waiting: the oldest are dropped`,
        );
      }
    },
    attach(stream) {
      current?.end();
      current = stream;
      waitingBytes = 0;
      for (const frame of buffer.splice(0)) stream.send(frame);
      dropped = 0;
    },
    isCurrent: (stream) => current === stream && !stream.closed,
    get open() {
      return isOpen();
    },
    get waitingBytes() {
      return waitingBytes;
    },
    end() {
      current?.end();
      current = undefined;
      buffer.length = 0;
      waitingBytes = 0;
    },
  };
}
