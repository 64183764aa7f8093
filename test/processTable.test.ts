/**
 * The process-liveness helpers of the process tests (test/helpers/processTable.ts;
 * docs/testing.md#testing-process): a gone process is reported as gone, and a process table that cannot be read fails loudly
 * instead of reporting no process.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProcessTable, processTable } from './helpers/processTable.js';

describe('the process table of the process tests', () => {
  it('sees this process and its running child, and a child that exited as gone', async () => {
    const marker = `process-table-marker-${process.pid}`;
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)', marker], { stdio: 'ignore' });
    try {
      await once(child, 'spawn');
      expect(processTable.pidsWithArgument(marker)).toEqual([child.pid]);
      expect(processTable.isRunning(process.pid)).toBe(true);
      expect(processTable.isRunning(child.pid!)).toBe(true);
      expect(processTable.childPids(process.pid)).toContain(child.pid);
      expect(processTable.rssKiB(child.pid!)).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
    }
    await once(child, 'exit');
    expect(processTable.isRunning(child.pid!)).toBe(false);
    expect(processTable.childPids(child.pid!)).toEqual([]);
    expect(processTable.rssKiB(child.pid!)).toBeUndefined();
    expect(processTable.pidsWithArgument(marker)).toEqual([]);
  });

  it('a process table that cannot be read throws instead of reporting no process', () => {
    const missing = createProcessTable('/nonexistent-proc-table');
    expect(() => missing.isRunning(process.pid)).toThrow(/cannot read the process table/);
    expect(() => missing.childPids(process.pid)).toThrow(/cannot read the process table/);
    expect(() => missing.rssKiB(process.pid)).toThrow(/cannot read the process table/);
    expect(() => missing.pidsWithArgument('node')).toThrow(/cannot read the process table/);
  });

  it('a process entry that cannot be read for another reason than its exit throws too', () => {
    // A table whose own entry reads, and an entry of pid 4242 that is a directory (EISDIR).
    const root = mkdtempSync(join(tmpdir(), 'proc-'));
    try {
      mkdirSync(join(root, String(process.pid)));
      writeFileSync(join(root, String(process.pid), 'stat'), '1 (node) S 0');
      mkdirSync(join(root, '4242', 'stat'), { recursive: true });
      const table = createProcessTable(root);
      expect(table.isRunning(process.pid)).toBe(true);
      expect(table.isRunning(4343)).toBe(false);
      expect(() => table.isRunning(4242)).toThrow(/cannot read the process table/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
