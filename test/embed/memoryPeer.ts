/**
 * A client of `serveDualEra` in the same process, over PassThrough streams, that sees the exact
 * lines on the wire: the fixture server served dual-era without a child process.
 */
import { PassThrough } from 'node:stream';
import { afterEach } from 'vitest';
import { createInterface } from 'node:readline';
import { serveDualEra } from '../../src/embed/index.js';
import type { DualEraHandle, ServeDualEraOptions } from '../../src/embed/index.js';
import { createFixtureServer } from '../fixtures/fixtureFactory.js';
import { parseFrame } from '../helpers/rawPeer.js';
import type { Frame } from '../helpers/rawPeer.js';
import { WAIT_BOUND_MS } from '../helpers/waitFor.js';

export interface MemoryPeer extends DualEraHandle {
  /** Writes one frame as a JSON line; a string is written as the line itself. */
  send(frame: unknown): void;
  /** Writes bytes as they are (several lines in one chunk, invalid UTF-8). */
  write(bytes: string | Uint8Array): void;
  /** Resolves with the first frame not yet taken that matches, waiting up to `timeoutMs`. */
  nextFrame(predicate?: (frame: Frame) => boolean, timeoutMs?: number): Promise<Frame>;
  /** Every line written so far. */
  readonly lines: readonly string[];
  /** Ends the input, as a client that goes away. */
  end(): void;
  /** Resolves once the output has ended and every line is in `lines`. */
  readonly outputEnded: Promise<void>;
  /** The diagnostic lines of the fixture server so far (`slow: started`, …). */
  readonly fixtureLog: readonly string[];
}

export function startEmbedded(options: Omit<ServeDualEraOptions, 'io'> = {}): MemoryPeer {
  const input = new PassThrough();
  const output = new PassThrough();
  const fixtureLog: string[] = [];
  const handle = serveDualEra(createFixtureServer({ hooks: { log: (line) => void fixtureLog.push(line) } }), {
    ...options,
    io: { input, output },
  });
  const endOutput = (): void => void output.end();
  handle.closed.then(endOutput, endOutput);
  const lines: string[] = [];
  const taken = new Set<number>();
  const waiters = new Set<() => void>();
  let ended = false;
  const reader = createInterface({ input: output });
  reader.on('line', (line) => {
    lines.push(line);
    waiters.forEach((wake) => wake());
  });
  const outputEnded = new Promise<void>((resolve) =>
    reader.once('close', () => {
      ended = true;
      resolve();
      waiters.forEach((wake) => wake());
    }),
  );

  const nextFrame = (
    predicate: (frame: Frame) => boolean = () => true,
    timeoutMs = WAIT_BOUND_MS,
  ): Promise<Frame> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        for (let i = 0; i < lines.length; i++) {
          const frame = parseFrame(lines[i]!);
          if (taken.has(i) || frame === undefined || !predicate(frame)) continue;
          taken.add(i);
          stop();
          resolve(frame);
          return;
        }
        if (ended) fail('the output ended');
      };
      const fail = (why: string): void => {
        stop();
        reject(new Error(`${why} without a matching frame; lines:\n  ${lines.join('\n  ')}`));
      };
      const timer = setTimeout(() => fail(`${timeoutMs} ms passed`), timeoutMs);
      const stop = (): void => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      waiters.add(check);
      check();
    });

  return {
    ...handle,
    send: (frame) => input.write(`${typeof frame === 'string' ? frame : JSON.stringify(frame)}\n`),
    write: (bytes) => input.write(bytes),
    nextFrame,
    lines,
    end: () => input.end(),
    outputEnded,
    fixtureLog,
  };
}

/**
 * A `start` that remembers each peer, and an `afterEach` that ends them all and waits until each
 * connection closed: call once at the top of a test file.
 */
export function usePeers(): (options?: Parameters<typeof startEmbedded>[0]) => MemoryPeer {
  const peers: MemoryPeer[] = [];
  afterEach(async () => {
    for (const peer of peers.splice(0)) {
      peer.end();
      await peer.closed;
    }
  });
  return (options = {}) => {
    const peer = startEmbedded(options);
    peers.push(peer);
    return peer;
  };
}
