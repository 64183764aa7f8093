/**
 * The measurements of the raw client: open a target (spawn and handshake), pipelined throughput,
 * sequential latency. Every measurement counts wrong and missing answers: a fast wrong answer is
 * a failure, never a result.
 */
import { INITIALIZED_LINE, initializeLine, requestLine } from './frames.js';
import type { Check, Era } from './frames.js';
import { spawnClient } from './rawClient.js';
import type { Frame, RawClient, SpawnOptions } from './rawClient.js';

export interface Target {
  /** Short name in the table. */
  readonly name: string;
  /** The era the raw client speaks to it. */
  readonly era: Era;
  readonly spawn: SpawnOptions;
}

export interface Opened {
  readonly client: RawClient;
  /** Spawn to the answer of `initialize` (legacy) or `server/discover` (modern), in ms. */
  readonly startMs: number;
  /** The handshake answer. */
  readonly answer: Frame;
}

/** Spawns the target and makes the handshake of its era; throws when the answer is an error. */
export async function openTarget(target: Target, timeoutMs = 30_000): Promise<Opened> {
  const started = performance.now();
  const client = spawnClient(target.spawn);
  try {
    const answer =
      target.era === 'legacy'
        ? await client.request('init', initializeLine('init'), timeoutMs)
        : await client.request('discover', requestLine('modern', 'discover', 'server/discover'), timeoutMs);
    const startMs = performance.now() - started;
    if (answer['result'] === undefined) throw new Error(`${target.name}: ${JSON.stringify(answer['error'])}`);
    if (target.era === 'legacy') client.send(INITIALIZED_LINE);
    return { client, startMs, answer };
  } catch (error) {
    await client.close(500);
    throw error;
  }
}

export interface Load {
  /** The request line of id `id`. */
  readonly line: (id: number) => string;
  readonly check: Check;
}

export interface Outcome {
  readonly wrong: number;
  readonly missing: number;
  /** The first wrong answer, for the report. */
  readonly sample?: string;
}

export interface ThroughputOutcome extends Outcome {
  readonly elapsedMs: number;
  readonly callsPerSecond: number;
}

let nextId = 1;

/**
 * Sends `count` requests keeping `window` in flight (a new one goes out as each answer arrives,
 * batched per read), and measures the time from the first send to the last answer.
 */
export function throughput(
  client: RawClient,
  load: Load,
  count: number,
  window: number,
  timeoutMs: number,
): Promise<ThroughputOutcome> {
  return new Promise((resolve) => {
    let sent = 0;
    let answered = 0;
    let wrong = 0;
    let sample: string | undefined;
    const started = performance.now();
    const finish = (missing: number): void => {
      clearTimeout(timer);
      const elapsedMs = performance.now() - started;
      resolve({
        elapsedMs,
        callsPerSecond: (answered * 1000) / elapsedMs,
        wrong,
        missing,
        ...(sample === undefined ? {} : { sample }),
      });
    };
    const timer = setTimeout(() => finish(count - answered), timeoutMs);
    const sendOne = (): void => {
      const id = nextId++;
      sent++;
      client.call(id, load.line(id), (frame) => {
        answered++;
        if (!load.check(frame, id)) {
          wrong++;
          sample ??= JSON.stringify(frame).slice(0, 300);
        }
        if (answered === count) finish(0);
        else if (sent < count) sendOne();
      });
    };
    for (let i = 0; i < Math.min(window, count); i++) sendOne();
  });
}

export interface LatencyOutcome extends Outcome {
  /** Round-trip times in ms, in order. */
  readonly samples: Float64Array;
}

/** Sends `count` requests one after the other; each one's round trip is a sample. */
export function latency(
  client: RawClient,
  load: Load,
  count: number,
  timeoutMs: number,
): Promise<LatencyOutcome> {
  return new Promise((resolve) => {
    const samples = new Float64Array(count);
    let done = 0;
    let wrong = 0;
    let sample: string | undefined;
    const finish = (missing: number): void => {
      clearTimeout(timer);
      resolve({
        samples: samples.subarray(0, done),
        wrong,
        missing,
        ...(sample === undefined ? {} : { sample }),
      });
    };
    const timer = setTimeout(() => finish(count - done), timeoutMs);
    const next = (): void => {
      const id = nextId++;
      const started = performance.now();
      client.call(id, load.line(id), (frame) => {
        samples[done++] = performance.now() - started;
        if (!load.check(frame, id)) {
          wrong++;
          sample ??= JSON.stringify(frame).slice(0, 300);
        }
        if (done === count) finish(0);
        else next();
      });
    };
    next();
  });
}
