/**
 * The records of one shim's connection as the shared host reads and writes them
 * (docs/shared.md#shared-framing): the hello, the client's input held until its session
 * subscribes, and the writes back (frames, stderr lines, the exit record).
 */
import type { Socket } from 'node:net';
import { Observable, Subject } from 'rxjs';
import type { Subscriber } from 'rxjs';
import { createRecordReader, record, TO_SHARED, TO_SHIM } from '../edges/sharedSocket/records.js';
import type { SharedHello } from '../edges/sharedSocket/records.js';

/** A hello's first record may be this long (the environment is in it); longer ends the connection. */
export const MAX_HELLO_BYTES = 1024 * 1024;
/** Input held while the session is being set up. */
const MAX_EARLY_INPUT_BYTES = 16 * 1024 * 1024;

/** The client's input, held from the hello until the session subscribes. */
export interface EarlyInput {
  readonly input$: Observable<Uint8Array>;
  readonly stop$: Observable<void>;
  readonly piece: (kind: number, piece: Buffer) => void;
  readonly end: (kind: number) => void;
}

/**
 * Reads the connection's records: the hello first (`onHello` gets it once it is whole and valid;
 * an invalid or too long one ends the connection), then the client's input, which the returned
 * EarlyInput holds for the session.
 */
export function readConnection(
  socket: Socket,
  onHello: (hello: SharedHello, input: EarlyInput) => void,
): void {
  const input = earlyInput(socket);
  let hello: Buffer[] | undefined = [];
  let helloBytes = 0;
  const read = createRecordReader({
    piece: (kind, piece) => {
      if (hello !== undefined) {
        helloBytes += piece.length;
        if (kind !== TO_SHARED.hello || helloBytes > MAX_HELLO_BYTES) socket.destroy();
        else hello.push(Buffer.from(piece));
        return;
      }
      input.piece(kind, piece);
    },
    end: (kind) => {
      if (hello === undefined) {
        input.end(kind);
        return;
      }
      const text = Buffer.concat(hello).toString('utf8');
      hello = undefined;
      const parsed = parseHello(text);
      if (parsed === undefined) {
        socket.destroy();
        return;
      }
      onHello(parsed, input);
    },
  });
  socket.on('data', read);
}

function earlyInput(socket: Socket): EarlyInput {
  let held: Uint8Array[] | undefined = [];
  let heldBytes = 0;
  let closed = false;
  let sink: Subscriber<Uint8Array> | undefined;
  const stop$ = new Subject<void>();
  const NEWLINE = Buffer.from('\n');
  const push = (bytes: Uint8Array): void => {
    if (sink !== undefined) {
      sink.next(bytes);
      return;
    }
    heldBytes += bytes.length;
    if (heldBytes > MAX_EARLY_INPUT_BYTES) socket.destroy();
    else held?.push(bytes);
  };
  return {
    input$: new Observable<Uint8Array>((subscriber) => {
      for (const bytes of held ?? []) subscriber.next(bytes);
      held = undefined;
      if (closed) subscriber.complete();
      else sink = subscriber;
      return () => {
        sink = undefined;
      };
    }),
    stop$,
    piece: (kind, piece) => {
      // Copied: the reader's view of the chunk is valid only during the call.
      if (kind === TO_SHARED.line || kind === TO_SHARED.piece) push(Buffer.from(piece));
    },
    end: (kind) => {
      if (kind === TO_SHARED.line) push(NEWLINE);
      else if (kind === TO_SHARED.closed) {
        closed = true;
        sink?.complete();
      } else if (kind === TO_SHARED.signal) stop$.next();
    },
  };
}

/** Writes to the socket, corked for one turn so that the lines of a turn share a write. */
export function writer(socket: Socket): (data: string | Uint8Array) => void {
  let corked = false;
  return (data) => {
    if (socket.destroyed) return;
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    socket.write(data);
  };
}

/** The exit record, then the end of the connection. */
export function finish(socket: Socket, code: number): void {
  if (socket.destroyed) return;
  socket.end(record(TO_SHIM.exit, String(code)));
}

/** A hello, or undefined for one that is not valid (the connection then ends). */
export function parseHello(text: string): SharedHello | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const hello = value as Record<string, unknown>;
  const kinds = ['session', 'status', 'stop'];
  if (hello['v'] !== 1 || typeof hello['kind'] !== 'string' || !kinds.includes(hello['kind']))
    return undefined;
  if (typeof hello['profile'] !== 'string' || typeof hello['cwd'] !== 'string') return undefined;
  const argv = hello['argv'];
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) return undefined;
  const env = hello['env'];
  if (typeof env !== 'object' || env === null || Array.isArray(env)) return undefined;
  if (!Object.values(env).every((v) => typeof v === 'string')) return undefined;
  const secret = hello['secret'];
  if (secret !== undefined && typeof secret !== 'string') return undefined;
  const grace = hello['graceMs'];
  if (grace !== undefined && (typeof grace !== 'number' || !Number.isInteger(grace) || grace < 0))
    return undefined;
  return value as SharedHello;
}
