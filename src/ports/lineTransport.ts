/**
 * What a line-based upstream connection (src/bridge/rpcConnection.ts) reads and writes: the child
 * process of src/edges/childProcess.ts implements it, tests and embedders give one of their own.
 */
import type { Observable } from 'rxjs';
import type { Frame } from '../protocol/jsonrpc.js';
import type { Inbound } from '../protocol/parseLine.js';

/** A line-based transport to an upstream (a child process or any stream of JSON-RPC lines). */
export interface LineTransport {
  /** Parsed upstream lines; completes when the upstream closes its stdout. */
  readonly inbound$: Observable<Inbound>;
  /** Queues one frame for the upstream's stdin. */
  send(frame: Frame): void;
  /**
   * Queues one line for the upstream's stdin: the JSON text of one frame and a newline. A
   * transport that writes text has it, so that requests go out as text made by requestLine
   * (src/codec/requestText.ts); one that passes objects (in memory) does not.
   */
  sendLine?(line: string): void;
  /** Emits once when the upstream process is gone. */
  readonly exit$: Observable<{ readonly code: number | null; readonly signal: string | null }>;
  close(): void;
}
