/**
 * The unread output of one session (docs/serve.md#serve-limits): the bytes that its open
 * responses (POST answers, POST and GET event streams) hold unwritten because the client does not
 * read them, plus what waits for its GET stream. A client that stops reading must not grow the
 * process: a write that finds more than the cap waiting, or a check that finds more than the cap
 * waiting for a whole interval without shrinking, overflows the session (it ends, frontSession.ts).
 * One frame may be larger than the cap: it goes out when little waits before it, so a client that
 * reads gets a large answer; what it leaves unread is bounded.
 */
import type { SchedulerLike, Subscription } from 'rxjs';

/** A response as the guard sees it (a Node ServerResponse is one). */
export interface Outlet {
  /** Bytes written and not yet taken by the socket. */
  readonly writableLength: number;
  destroy(): void;
}

/** What a stream of a session asks before each write. */
export interface OutputGuard {
  /** `outlet` holds bytes of the session until the returned function is called (it closed). */
  track(outlet: Outlet): () => void;
  /** Before a write: false when the session overflowed (it is ending; write nothing). */
  admits(): boolean;
}

/** The unread output of one session. */
export interface SessionOutput extends OutputGuard {
  /** Bytes waiting now: in the tracked outlets and in the session's own queue. */
  readonly queued: number;
  /** Destroys every tracked outlet (the session ends). */
  closeAll(): void;
  /** Stops the periodic check. */
  stop(): void;
}

export interface SessionOutputSettings {
  /** Most bytes that may wait unread (`--max-session-buffer-bytes`). */
  readonly maxBytes: number;
  /** The interval of the check of a session that writes nothing more (the keep-alive interval). */
  readonly checkEveryMs: number;
  readonly scheduler: SchedulerLike;
  /** Bytes of the session's own queue (the frames waiting for its GET stream). */
  readonly waiting: () => number;
  /** Called once, with the bytes waiting, when the session overflows. */
  readonly onOverflow: (queued: number) => void;
}

export function createSessionOutput(s: SessionOutputSettings): SessionOutput {
  const outlets = new Set<Outlet>();
  let overflowed = false;
  let stopped = false;
  // Infinity: the first check only records, so a large answer just written is not taken as unread.
  let atLastCheck = Number.POSITIVE_INFINITY;

  const queued = (): number => {
    let total = s.waiting();
    for (const outlet of outlets) total += outlet.writableLength;
    return total;
  };
  const overflow = (bytes: number): false => {
    if (!overflowed) {
      overflowed = true;
      output.stop();
      s.onOverflow(bytes);
    }
    return false;
  };

  const output: SessionOutput = {
    get queued() {
      return queued();
    },
    track(outlet) {
      outlets.add(outlet);
      return () => {
        outlets.delete(outlet);
      };
    },
    admits() {
      if (overflowed) return false;
      const bytes = queued();
      return bytes > s.maxBytes ? overflow(bytes) : true;
    },
    closeAll() {
      for (const outlet of [...outlets]) outlet.destroy();
      outlets.clear();
    },
    stop() {
      stopped = true;
      check.unsubscribe();
    },
  };

  // A client that reads nothing while nothing more is written (one large JSON answer) is found
  // here: above the cap at two checks in a row, and not less than at the first.
  const check: Subscription = s.scheduler.schedule(function (this: {
    schedule(state: undefined, delay: number): void;
  }) {
    if (stopped) return;
    const bytes = queued();
    if (bytes > s.maxBytes && bytes >= atLastCheck) {
      overflow(bytes);
      return;
    }
    atLastCheck = bytes > s.maxBytes ? bytes : Number.POSITIVE_INFINITY;
    this.schedule(undefined, s.checkEveryMs);
  }, s.checkEveryMs);
  return output;
}
