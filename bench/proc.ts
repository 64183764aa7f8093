/**
 * CPU time and memory of one process, from /proc (Linux). The CPU time of a process is its own
 * `utime + stime`: the time of its children is not in it, so the bridge is measured alone.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

let ticksPerSecond: number | undefined;

/** Clock ticks per second of the CPU times in /proc/<pid>/stat (getconf CLK_TCK, else 100). */
export function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User plus system CPU time of `pid` so far, in ms (resolution: one clock tick, 10 ms). */
export function cpuMs(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1000) / clockTicks();
}

/** Resident memory of `pid` now and at its peak, in MiB. */
export function memoryMiB(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** The machine, for the report. */
export function machine(): { cpu: string; cores: number; memoryGiB: number; node: string; os: string } {
  let cpu = 'unknown';
  let cores = 0;
  let memoryGiB = 0;
  try {
    const info = readFileSync('/proc/cpuinfo', 'utf8');
    cpu = /^model name\s*:\s*(.*)$/m.exec(info)?.[1]?.trim() ?? cpu;
    cores = (info.match(/^processor\s*:/gm) ?? []).length;
    const mem = readFileSync('/proc/meminfo', 'utf8');
    memoryGiB = Math.round(Number(/^MemTotal:\s+(\d+)/m.exec(mem)?.[1] ?? 0) / 1024 / 1024);
  } catch {
    // Not Linux: the report says unknown.
  }
  return { cpu, cores, memoryGiB, node: process.version, os: `${process.platform} ${process.arch}` };
}

/** Read and write system calls of `pid` so far (/proc/<pid>/io). */
export function syscalls(pid: number): { reads: number; writes: number } {
  const text = readFileSync(`/proc/${pid}/io`, 'utf8');
  const count = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? NaN);
  return { reads: count('syscr'), writes: count('syscw') };
}

/** The 1-minute load average: other work on the machine shows in the spread of every row. */
export function loadAverage(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

/** The pids of the processes under `roots` (them included), from the parent pids in /proc. */
function treePids(roots: readonly number[]): Set<number> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // Fields after the command name: state, then the parent pid.
    const ppid = Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const found = new Set<number>();
  const visit = (pid: number): void => {
    if (found.has(pid)) return;
    found.add(pid);
    for (const child of children.get(pid) ?? []) visit(child);
  };
  for (const root of roots) visit(root);
  return found;
}

/** VmRSS summed over the processes under `roots` (each counted once), in MiB. */
export function treeRssMiB(roots: readonly number[]): number {
  let sum = 0;
  for (const pid of treePids(roots)) {
    try {
      const { rss } = memoryMiB(pid);
      if (Number.isFinite(rss)) sum += rss;
    } catch {
      // Gone meanwhile.
    }
  }
  return sum;
}
