/**
 * The framing of the shared bridge's socket (docs/shared.md#shared-framing): the stream is records,
 * each one kind byte, a payload without a newline, and a newline. The payloads of the line kinds
 * are the client's or the bridge's own lines cut at their newlines, so no payload ever holds one
 * and no escaping is needed. Node built-ins only: the shim loads this before anything heavy.
 */

/** Shim → shared process. */
export const TO_SHARED = {
  /** The hello: JSON (SharedHello), the first record of a connection. */
  hello: 0x48, // H
  /** A piece of a client line that ends the line (the newline is the record's own). */
  line: 0x4c, // L
  /** A piece of a client line that does not end it. */
  piece: 0x50, // P
  /** The client closed its stdin. */
  closed: 0x43, // C
  /** The shim got a first SIGTERM or SIGINT (payload: its name). */
  signal: 0x53, // S
} as const;

/** Shared process → shim. */
export const TO_SHIM = {
  /** One frame line for stdout (a large result may come in several writes, one record still). */
  frame: 0x46, // F
  /** One stderr line of the bridge for this session. */
  stderr: 0x45, // E
  /** The exit code of the session: the shim exits with it once its output is written. */
  exit: 0x58, // X
  /** An answer of a control command (`shared status`): JSON. */
  answer: 0x41, // A
} as const;

const NEWLINE = 0x0a;

/**
 * What a record reader reports: the bytes of the record of `kind` that arrived (`piece`, a view
 * of the chunk, valid only during the call), and `end` once the record's newline came.
 */
export interface RecordSink {
  readonly piece: (kind: number, piece: Buffer) => void;
  readonly end: (kind: number) => void;
}

/** A streaming reader: nothing is buffered, a record longer than any chunk streams through. */
export function createRecordReader(sink: RecordSink): (chunk: Buffer) => void {
  let kind: number | undefined;
  return (chunk) => {
    let at = 0;
    while (at < chunk.length) {
      if (kind === undefined) {
        kind = chunk[at]!;
        at += 1;
        if (kind === NEWLINE) {
          // An empty record carries nothing: skipped.
          kind = undefined;
          continue;
        }
      }
      const end = chunk.indexOf(NEWLINE, at);
      if (end === -1) {
        if (at < chunk.length) sink.piece(kind, chunk.subarray(at));
        return;
      }
      if (end > at) sink.piece(kind, chunk.subarray(at, end));
      sink.end(kind);
      kind = undefined;
      at = end + 1;
    }
  };
}

/** One record: `kind`, the payload (which must hold no newline), a newline. */
export function record(kind: number, payload: string | Uint8Array = ''): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const out = Buffer.allocUnsafe(body.length + 2);
  out[0] = kind;
  out.set(body, 1);
  out[body.length + 1] = NEWLINE;
  return out;
}

/**
 * The records of a chunk of the client's stdin: an `L` record per complete line and a `P` record
 * for a last piece without its newline (the next chunk continues it).
 */
export function inputRecords(chunk: Uint8Array): Buffer[] {
  const out: Buffer[] = [];
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  let at = 0;
  for (;;) {
    const end = bytes.indexOf(NEWLINE, at);
    if (end === -1) break;
    out.push(record(TO_SHARED.line, bytes.subarray(at, end)));
    at = end + 1;
  }
  if (at < bytes.length) out.push(record(TO_SHARED.piece, bytes.subarray(at)));
  return out;
}

/** The hello of a shim: its bridge arguments and the process it stands for. */
export interface SharedHello {
  /** The framing's version; a shared process of another version refuses the hello. */
  readonly v: 1;
  /** `session`: serve a client; `status` and `stop`: the diagnostics (docs/shared.md#shared-status). */
  readonly kind: 'session' | 'status' | 'stop';
  /** The executable's profile name (`mcp-bridge` or `mcp-bridge-vscode`). */
  readonly profile: string;
  /** The command line after the executable, without the shared options. */
  readonly argv: readonly string[];
  readonly cwd: string;
  /** The shim's environment: never logged (it holds secrets). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--shared-grace` in ms, when given. */
  readonly graceMs?: number;
  /**
   * The shared process's secret, read from its file (secret.ts, docs/shared.md#shared-secret); a
   * hello without the right one is refused. Never logged.
   */
  readonly secret?: string;
}

export const SHARED_FRAMING_VERSION = 1;
