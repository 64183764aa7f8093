/**
 * `doctor -- <command>` (docs/doctor.md#doctor-checks): starts the command as the bridge starts
 * it (src/edges/childStart.ts), sends `server/discover` on its stdin and reads its stdout for the
 * answer, within `--discover-timeout`. A server that refuses it gets an `initialize` of
 * 2025-11-25, whose result names the revision it speaks. The child is stopped as the bridge
 * stops one (stdin closed, then SIGTERM and SIGKILL to its process group).
 */
import { basename } from 'node:path';
import {
  CHILD_STOP_GRACE_MS,
  startUpstreamChild,
  stopUpstreamChild,
  type UpstreamChild,
} from '../../edges/childStart.js';
import { result, serverText, type CheckResult } from './checks.js';
import { readLines, type LineReader } from './lineReader.js';
import {
  discoverRequest,
  legacyInitialize,
  olderRevision,
  readDiscover,
  responseOf,
  spokenVersion,
} from './discoverAnswer.js';

export interface CommandCheckInput {
  readonly argv: readonly [string, ...string[]];
  readonly discoverTimeoutMs: number;
  readonly maxLineBytes: number;
  readonly version: string;
}

/** What the child answered to one request: its response, or why there is none. */
type Reply =
  | { readonly kind: 'response'; readonly frame: Record<string, unknown> }
  | { readonly kind: 'exit'; readonly detail: string }
  | { readonly kind: 'timeout' };

/** Sends one request line and waits for the response of its id, the exit, or the time limit. */
function ask(
  child: UpstreamChild,
  lines: LineReader,
  line: string,
  id: number,
  limitMs: number,
): Promise<Reply> {
  return new Promise<Reply>((resolve) => {
    let done = false;
    const finish = (reply: Reply): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(reply);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout' }), limitMs);
    child.onExit((exit) =>
      finish({
        kind: 'exit',
        detail: exit.signal === null ? `it exited with the code ${exit.code}` : `it ended on ${exit.signal}`,
      }),
    );
    child.stdin.write(`${line}\n`);
    const next = (): void => {
      lines.next().then(
        (item) => {
          if (done) return;
          if (item === undefined)
            return finish({
              kind: 'exit',
              detail: lines.tooLong ? 'it wrote a line longer than --max-line-bytes' : 'it closed its stdout',
            });
          const frame = responseOf(parse(item), id);
          if (frame === undefined) next();
          else finish({ kind: 'response', frame });
        },
        () => finish({ kind: 'exit', detail: 'its stdout failed' }),
      );
    };
    next();
  });
}

function parse(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

const started = (child: UpstreamChild): Promise<NodeJS.ErrnoException | undefined> =>
  new Promise((resolve) => child.onStart((outcome) => resolve(outcome.ok ? undefined : outcome.error)));

/** The checks `start` and `revision` of a command. */
export async function commandChecks(input: CommandCheckInput): Promise<CheckResult[]> {
  const name = serverText(basename(input.argv[0]));
  const child = startUpstreamChild(input.argv);
  const failed = await started(child);
  if (failed !== undefined) {
    const code = serverText(failed.code ?? 'Error');
    const notFound = code === 'ENOENT';
    return [
      result(
        'start',
        'fail',
        notFound
          ? `the command "${name}" was not found (ENOENT)`
          : `the command "${name}" cannot start (${code})`,
        notFound
          ? 'give the full path of the command, or add its folder to PATH'
          : 'check that the command is a program you may run',
      ),
      result('revision', 'skip', 'the upstream did not start'),
    ];
  }
  const lines = readLines(child.takeStdout(), input.maxLineBytes);
  try {
    const limit = input.discoverTimeoutMs;
    const reply = await ask(child, lines, discoverRequest(1, input.version), 1, limit);
    if (reply.kind !== 'response') {
      const why =
        reply.kind === 'timeout' ? `no answer to server/discover in ${limit / 1000} s` : reply.detail;
      return [
        result(
          'start',
          reply.kind === 'timeout' ? 'ok' : 'fail',
          `the command "${name}" started; ${why}`,
          reply.kind === 'timeout' ? '' : 'run the command in a terminal to see why it stops',
        ),
        result(
          'revision',
          'fail',
          reply.kind === 'timeout' ? why : 'the upstream stopped before it answered server/discover',
          'check that the command is an MCP server on stdio of revision 2026-07-28',
        ),
      ];
    }
    const start = result('start', 'ok', `the command "${name}" started and answers on stdout`);
    const verdict = readDiscover(reply.frame);
    if (verdict.kind === 'modern') return [start, verdict.check];
    const legacy = await ask(child, lines, legacyInitialize(2, input.version), 2, limit);
    return [
      start,
      olderRevision(verdict.why, legacy.kind === 'response' ? spokenVersion(legacy.frame) : undefined),
    ];
  } finally {
    lines.close();
    await stopUpstreamChild(child, CHILD_STOP_GRACE_MS);
  }
}
