/**
 * The process table of the process tests (Linux /proc). A process that is gone is reported as
 * gone; a table that cannot be read fails the test instead of looking like "no process"
 * (docs/testing.md#testing-process), so that a test of "no process outlives the bridge" can never pass on a machine, a
 * sandbox or a permission setup where it checks nothing.
 */
import { readFileSync, readdirSync } from 'node:fs';

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

export interface ProcessTable {
  /** The pids of the direct children of a process; empty when it is gone. */
  childPids(pid: number): number[];
  /** True while a process runs (a zombie counts as gone: it runs no code any more). */
  isRunning(pid: number): boolean;
  /** The resident set size in KiB, or undefined when the process is gone. */
  rssKiB(pid: number): number | undefined;
  /** The pids of the running processes that have `argument` as one item of their argv. */
  pidsWithArgument(argument: string): number[];
}

export function createProcessTable(root = '/proc'): ProcessTable {
  /** Fails unless the table itself can be read: its entry of this very process must be there. */
  const checkTable = (): void => {
    try {
      readFileSync(`${root}/${process.pid}/stat`, 'utf8');
    } catch (error: unknown) {
      throw new Error(`cannot read the process table at ${root} (${codeOf(error) ?? 'error'})`, {
        cause: error,
      });
    }
  };
  /** A file of a process: undefined when the process (or thread) is gone; other failures throw. */
  const read = <T>(what: () => T): T | undefined => {
    try {
      return what();
    } catch (error: unknown) {
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ESRCH') return undefined;
      throw new Error(`cannot read the process table at ${root} (${codeOf(error) ?? 'error'})`, {
        cause: error,
      });
    }
  };
  const table: ProcessTable = {
    childPids(pid) {
      checkTable();
      const tasks = read(() => readdirSync(`${root}/${pid}/task`)) ?? [];
      return tasks.flatMap((task) =>
        (read(() => readFileSync(`${root}/${pid}/task/${task}/children`, 'utf8')) ?? '')
          .split(/\s+/)
          .filter((word) => word !== '')
          .map(Number),
      );
    },
    isRunning(pid) {
      checkTable();
      const stat = read(() => readFileSync(`${root}/${pid}/stat`, 'utf8'));
      if (stat === undefined) return false;
      // The state is the first field after the command name in parentheses.
      const close = stat.lastIndexOf(')');
      return stat.slice(close + 2, close + 3) !== 'Z';
    },
    rssKiB(pid) {
      checkTable();
      const status = read(() => readFileSync(`${root}/${pid}/status`, 'utf8'));
      const match = status === undefined ? null : /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
      return match === null ? undefined : Number(match[1]);
    },
    pidsWithArgument(argument) {
      checkTable();
      return readdirSync(root)
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) =>
          (read(() => readFileSync(`${root}/${pid}/cmdline`, 'utf8')) ?? '').split('\0').includes(argument),
        )
        .map(Number)
        .filter((pid) => table.isRunning(pid));
    },
  };
  return table;
}

/** The table of this machine. */
export const processTable: ProcessTable = createProcessTable();
