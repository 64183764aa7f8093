/**
 * The open connections of the loopback receiver and their time limits (SECURITY.md, "The loopback
 * receiver"). Each connection gets the head time limit from its admission and the close grace
 * once its head arrived (or was refused). At the connection limit a new connection pushes out the
 * oldest one that has not sent a complete head, so idle connections cannot lock the browser out;
 * only when every connection has sent its head (each is then done within the close grace) is the
 * new one closed.
 */
import type { Socket } from 'node:net';

interface Entry {
  timer: NodeJS.Timeout;
  /** The head arrived (or was refused with 400/431): the connection is answered and closing. */
  answered: boolean;
  /** The owner check of the receiver passed for this connection (Linux). */
  readonly checked: boolean;
}

export interface ConnectionTable {
  /**
   * Takes a new connection; `evicted` when the oldest connection without a head was closed to make
   * room, false (and the new one is closed) when all connections at the limit are answered.
   */
  admit(socket: Socket, checked: boolean): { readonly admitted: boolean; readonly evicted: boolean };
  /** The head of `socket` arrived or was refused: it has `ms` left before it is destroyed. */
  answered(socket: Socket, ms: number): void;
  /** Whether the owner check passed for the connection of `socket`. */
  checked(socket: Socket): boolean;
  /** Destroys the connections without a head now and gives the others `ms`. */
  closeAll(ms: number): void;
}

export function connectionTable(limits: {
  readonly maxConnections: number;
  readonly headTimeoutMs: number;
}): ConnectionTable {
  // A Map iterates in insertion order: the first entry is the oldest connection.
  const sockets = new Map<Socket, Entry>();

  const drop = (socket: Socket): void => {
    clearTimeout(sockets.get(socket)?.timer);
    sockets.delete(socket);
    socket.destroy();
  };

  const answered = (socket: Socket, ms: number): void => {
    const entry = sockets.get(socket);
    if (entry === undefined) return;
    entry.answered = true;
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => socket.destroy(), ms);
  };

  return {
    admit(socket, checked) {
      let evicted = false;
      if (sockets.size >= limits.maxConnections) {
        const idle = [...sockets].find(([, entry]) => !entry.answered)?.[0];
        if (idle === undefined) {
          socket.destroy();
          return { admitted: false, evicted };
        }
        drop(idle);
        evicted = true;
      }
      sockets.set(socket, {
        timer: setTimeout(() => socket.destroy(), limits.headTimeoutMs),
        answered: false,
        checked,
      });
      socket.once('close', () => {
        // A connection pushed out and closed is already gone from the table.
        if (sockets.get(socket) !== undefined) {
          clearTimeout(sockets.get(socket)?.timer);
          sockets.delete(socket);
        }
      });
      return { admitted: true, evicted };
    },
    answered,
    checked: (socket) => sockets.get(socket)?.checked ?? false,
    closeAll(ms) {
      for (const [socket, entry] of sockets) {
        if (entry.answered) answered(socket, ms);
        else drop(socket);
      }
    },
  };
}
