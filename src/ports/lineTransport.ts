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
  /**
   * Queues one frame for the upstream. The frame is made for this send and nothing else holds it:
   * a transport of text may make its line in place (`frameLine` of src/codec/requestText.ts), one
   * in memory may hand it on as it is.
   */
  send(frame: Frame): void;
  /** Emits once when the upstream process is gone. */
  readonly exit$: Observable<{ readonly code: number | null; readonly signal: string | null }>;
  close(): void;
}
