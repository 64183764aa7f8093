/**
 * The CLI stops a child it started early when the command line does not serve that child
 * (src/cli/run.ts): whatever the form, it never outlives the run.
 */
import { describe, expect, it, vi } from 'vitest';
import { startUpstreamChild } from '../../src/edges/childStart.js';
import type { ChildExit } from '../../src/edges/childStart.js';
import { main } from '../../src/cli/run.js';
import { vscodeProfile } from '../../src/profiles/vscode.js';

/** A child that ignores the end of its stdin (only a signal stops it). */
const idle = (): [string, ...string[]] => [process.execPath, '-e', 'setInterval(() => undefined, 1000);'];

describe('main with a child started before the parse', () => {
  it.each([
    ['invalid arguments', ['--discover-timeout', 'soon', '--', 'node'], 2],
    ['--version', ['--version'], 0],
  ])('stops it for %s, before it resolves with the exit code', async (_, argv, code) => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      const child = startUpstreamChild(idle());
      let exit: ChildExit | undefined;
      child.onExit((value) => {
        exit = value;
      });
      const early = { child, takeSignal: () => false };
      expect(await main(argv, vscodeProfile, early)).toBe(code);
      expect(exit).toEqual({ code: null, signal: 'SIGTERM' });
    } finally {
      write.mockRestore();
      out.mockRestore();
    }
  });
});
