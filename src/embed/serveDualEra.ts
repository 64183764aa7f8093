/**
 * `serveDualEra`: one server process serves both MCP revisions on one stdio connection
 * (docs/embedded.md#embedded-selection). This is a composition root like src/cli/main.ts: the only place of
 * embedded mode with Node streams and Promises.
 */
import { errorName } from '../ports/causeOf.js';
import type { Readable, Writable } from 'node:stream';
import type { InputSchemaChecks } from '../codec/input/checks.js';
import { ajvInputChecks } from '../node/inputChecks.js';
import type { McpServerFactory } from '@modelcontextprotocol/server';
import { EMPTY, catchError, filter, map, tap } from 'rxjs';
import { DEFAULT_DECODE_LINES_CONFIG, decodeLines } from '../../operators/decodeLines.js';
import { encodeFrames } from '../../operators/encodeFrames.js';
import type { BridgeLimits } from '../bridge/config.js';
import type { Logger } from '../ports/logger.js';
import { silentLogger } from '../ports/logger.js';
import { createFlowControl } from '../edges/flowControl.js';
import { readChunks, writeLines } from '../edges/stdio.js';
import { dualEra } from './dualEra.js';
import { EMBEDDED_LIMITS } from './legacyPath.js';
import type { SelectedEra } from './opening.js';

/** Settings of serveDualEra. */
export interface ServeDualEraOptions {
  /**
   * `server/discover` before any other request: `'answer'` (default) lets the server answer it,
   * `'refuse'` answers -32601 so that a client that probes first (the Copilot harness) falls
   * back to `initialize` and takes the legacy path.
   */
  readonly discover?: 'answer' | 'refuse';
  /** The connection. Default: `process.stdin` and `process.stdout`. */
  readonly io?: { readonly input: Readable; readonly output: Writable };
  /**
   * Over EMBEDDED_LIMITS: `maxInFlight` (both paths), `shutdownGraceMs` (default 2000), and the
   * limits of the legacy path, which has no time limit per request by default.
   */
  readonly limits?: Partial<BridgeLimits>;
  /** Longest line in bytes, in both directions. Default 64 MiB. */
  readonly maxLineBytes?: number;
  /** Where the warnings of the legacy front end go. Default: nowhere (never stdout). */
  readonly logger?: Logger;
  /** `serverInfo.name` on the legacy path when the server gives none. Default `mcp-server`. */
  readonly name?: string;
  /** `serverInfo.version` on the legacy path when the server gives none. Default `0.0.0`. */
  readonly version?: string;
  /**
   * The schema checks of the legacy path's input rounds (BridgeDeps.checks). Default:
   * ajvInputChecks of `mcp-bridge-sdk/node`, which load ajv and the schema on first use.
   */
  readonly checks?: InputSchemaChecks;
}

/** The running dual-era server. */
export interface DualEraHandle {
  /**
   * The path the first request selected: `'legacy'` (2025-11-25 through the bridge),
   * `'modern'` (2026-07-28), or `'none'` when the input ended before any.
   */
  readonly era: Promise<SelectedEra>;
  /**
   * Settles when the connection has stopped and its last frame is written: at the end of the
   * input plus at most the grace of the requests in flight. There is no watchdog: stopping the
   * process is the embedder's decision. Rejects only on an internal failure.
   */
  readonly closed: Promise<void>;
}

/**
 * Serves the server of `factory` on stdio for clients of both revisions.
 *
 * @example
 * ```ts
 * const { closed } = serveDualEra(() => createMyServer());
 * await closed;
 * process.exit(0);
 * ```
 */
export function serveDualEra(factory: McpServerFactory, options: ServeDualEraOptions = {}): DualEraHandle {
  const input = options.io?.input ?? process.stdin;
  const output = options.io?.output ?? process.stdout;
  const logger = options.logger ?? silentLogger;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_DECODE_LINES_CONFIG.maxLineBytes;
  const maxDepth = DEFAULT_DECODE_LINES_CONFIG.maxDepth;
  const serve = dualEra(factory, {
    discover: options.discover ?? 'answer',
    limits: { ...EMBEDDED_LIMITS, ...options.limits },
    maxLineBytes,
    maxDepth,
    name: options.name ?? 'mcp-server',
    version: options.version ?? '0.0.0',
    logger,
    checks: options.checks ?? ajvInputChecks,
  });

  let settleEra: (era: SelectedEra) => void = () => undefined;
  const era = new Promise<SelectedEra>((resolve) => (settleEra = resolve));
  // A client that went away makes writes fail (EPIPE); the end of the input follows.
  const ignoreWriteError = (): void => undefined;
  output.on('error', ignoreWriteError);
  // A client that does not read the output stops the reading of the input (back-pressure).
  const flow = createFlowControl(output, [input]);

  const closed = new Promise<void>((resolve, reject) => {
    const finish = (): void => {
      output.off('error', ignoreWriteError);
      settleEra('none');
    };
    readChunks(input)
      .pipe(
        catchError((error: unknown) => {
          logger.log(
            'embed',
            'warn',
            `reading the input failed (${errorName(error)}); this ends the connection`,
          );
          return EMPTY;
        }),
        decodeLines({ maxLineBytes, maxDepth }),
        serve,
        // Per frame: no inner subscription.
        tap((out) => {
          if (out.kind === 'era') settleEra(out.era);
        }),
        filter((out): out is Extract<typeof out, { kind: 'frame' }> => out.kind === 'frame'),
        map((out) => out.frame),
        encodeFrames(),
        tap(() => flow.check()),
        writeLines(output),
      )
      .subscribe({
        complete: () => {
          finish();
          resolve();
        },
        error: (error: unknown) => {
          finish();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      });
  });
  return { era, closed };
}
