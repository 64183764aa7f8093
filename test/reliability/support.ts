/**
 * Shared pieces of the reliability tests: a client that answers the bridge's requests like
 * VS Code does, and process checks (pids, RSS) for the fault injection tests.
 */
import { processTable } from '../helpers/processTable.js';
import { parseFrame } from '../helpers/rawPeer.js';
import type { Frame, RawPeer } from '../helpers/rawPeer.js';

/** The answer of the client to one bridge request, or undefined to leave it unanswered. */
export type Answerer = (request: Frame) => Record<string, unknown> | undefined;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value for one property of a form: the first enum value, "Ada", 36, true (the interop answers). */
function formValue(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  switch (schema['type']) {
    case 'integer':
    case 'number':
      return 36;
    case 'boolean':
      return true;
    case 'array':
      return [];
    default:
      return 'Ada';
  }
}

/** Answers like VS Code whose user accepts everything (docs/testing.md#testing-ci). */
export const acceptAll: Answerer = (request) => {
  const params = isRecord(request['params']) ? request['params'] : {};
  switch (request['method']) {
    case 'elicitation/create': {
      if (params['mode'] === 'url') return { action: 'accept' };
      const schema = isRecord(params['requestedSchema']) ? params['requestedSchema'] : {};
      const properties = isRecord(schema['properties']) ? schema['properties'] : {};
      const content = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          formValue(isRecord(property) ? property : {}),
        ]),
      );
      return { action: 'accept', content };
    }
    case 'sampling/createMessage':
      return { model: 'reliability', role: 'assistant', content: { type: 'text', text: 'hello' } };
    case 'roots/list':
      return { roots: [{ uri: 'file:///work/project', name: 'project' }, { uri: 'vscode-vfs://github/x' }] };
    default:
      return undefined;
  }
};

export interface AutoAnswer {
  /** Bridge requests answered so far. */
  readonly answered: number;
  /** Bridge requests seen so far (answered or not). */
  readonly seen: number;
  stop(): void;
}

/** Watches the stdout of the bridge and answers each bridge request (`b-N`) with `answer`. */
export function autoAnswer(peer: RawPeer, answer: Answerer = acceptAll, everyMs = 5): AutoAnswer {
  let cursor = 0;
  let answered = 0;
  let seen = 0;
  const timer = setInterval(() => {
    for (; cursor < peer.lines.length; cursor++) {
      const frame = parseFrame(peer.lines[cursor]!);
      if (frame === undefined || typeof frame['method'] !== 'string') continue;
      const id = frame['id'];
      if (typeof id !== 'string' || !id.startsWith('b-')) continue;
      seen += 1;
      const result = answer(frame);
      if (result === undefined) continue;
      answered += 1;
      peer.send({ jsonrpc: '2.0', id, result });
    }
  }, everyMs);
  return {
    get answered() {
      return answered;
    },
    get seen() {
      return seen;
    },
    stop: () => clearInterval(timer),
  };
}

/** The resident set size of a process in KiB (Linux /proc), or undefined when it is gone. */
export const rssKiB = (pid: number): number | undefined => processTable.rssKiB(pid);

// One implementation for all process tests (test/helpers/bridgeProcess.ts).
export { exitWithin, isRunning as isAlive } from '../helpers/bridgeProcess.js';
export { waitFor } from '../helpers/waitFor.js';

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Every process started below `pid` (Linux /proc: children of each thread, recursively). */
export function descendants(pid: number): number[] {
  const children = (parent: number): number[] => processTable.childPids(parent);
  const all: number[] = [];
  const walk = (parent: number): void => {
    for (const child of children(parent)) {
      all.push(child);
      walk(child);
    }
  };
  walk(pid);
  return all;
}

/** The pids that the scripted upstream printed on stderr (`scripted-upstream: pid N`). */
export const scriptedPids = (stderr: readonly string[]): number[] =>
  stderr.flatMap((line) => {
    const match = /^scripted-upstream: pid (\d+)$/.exec(line);
    return match === null ? [] : [Number(match[1])];
  });

/** Prefixes of the processes whose stderr a bridge test sees. */
const TAGS = ['mcp-bridge-vscode: ', 'scripted-upstream: ', 'bridge-fixture-server: ', 'tap-upstream: '];

/**
 * Lines that show a crash: an unhandled rejection or error, a stack frame, or any line without
 * the tag of the bridge or of a known upstream (docs/logging.md#logging-line-format).
 */
export const crashLines = (stderr: readonly string[]): string[] =>
  stderr.filter(
    (line) =>
      /UnhandledPromiseRejection|Unhandled 'error'|uncaught|^\s+at /i.test(line) ||
      !TAGS.some((tag) => line.startsWith(tag)),
  );
