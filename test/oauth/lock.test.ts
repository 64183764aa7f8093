/**
 * The cross-process sign-in lock with real child processes running the
 * built lock (`npm run build` first): mutual exclusion among five processes, takeover of a killed
 * holder through its pid, takeover of a hung holder through its stopped heartbeat, and no
 * takeover of a live holder however long it holds.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFileLock } from '../../src/oauth/store/lock.js';
import { recordingLogger, tempDir } from './storeTestKit.js';
import { waitFor } from '../helpers/waitFor.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const LOCK_MODULE = pathToFileURL(path.join(root, 'dist/src/oauth/store/lock.js')).href;
const KEY = {
  url: 'https://mcp.example.test/mcp',
  identity: 'mcp-bridge-vscode|default|http://127.0.0.1:41894/callback',
};
const LOCK_NAME = `${createHash('sha256').update(`${KEY.url}\n${KEY.identity}`).digest('hex')}.lock`;

/** A hold of KEY on `lock` whose work has started and runs until `release()`; `held` is the hold. */
async function holdUntilReleased(
  lock: ReturnType<typeof createFileLock>,
): Promise<{ release: () => void; held: Promise<void> }> {
  let release = (): void => undefined;
  let started = (): void => undefined;
  const running = new Promise<void>((resolve) => (started = resolve));
  const held = lock.hold(
    KEY,
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        started();
      }),
  );
  await running;
  return { release: () => release(), held };
}

/** The child: one mode of holding the lock, reporting on stdout with synchronous writes. */
const CHILD = `
import { existsSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { access, readFile, unlink, writeFile } from 'node:fs/promises';
const { createFileLock } = await import(${JSON.stringify(LOCK_MODULE)});
const cfg = JSON.parse(process.argv[1]);
const say = (text) => writeSync(1, text + '\\n');
// count: a worker's flag file says it waits for the lock ('waiting') or has done all its rounds.
const flag = (what, id) => cfg.flags + '/' + what + '-' + id;
const WAITS = 'waits for the sign-in of another bridge process';
const log = (scope, level, text) => {
  say('log ' + level + ' ' + text);
  if (cfg.mode === 'count' && text === WAITS) writeFileSync(flag('waiting', cfg.id), '');
};
const logger = { enabled: () => true, log };
const lock = createFileLock({ directory: cfg.dir, logger, pollMs: 20, ...cfg.lock });
const key = ${JSON.stringify(KEY)};
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
const others = () => Array.from({ length: cfg.workers }, (_, id) => id).filter((id) => id !== cfg.id);
const settled = (id) => existsSync(flag('waiting', id)) || existsSync(flag('done', id));
const mine = () => { try { return readFileSync(cfg.marker, 'utf8') === String(process.pid); } catch { return false; } };
if (cfg.mode === 'count') {
  let violations = 0;
  for (let i = 0; i < cfg.rounds; i += 1) {
    await lock.hold(key, async () => {
      rmSync(flag('waiting', cfg.id), { force: true });
      try { await access(cfg.marker); violations += 1; } catch {}
      await writeFile(cfg.marker, String(process.pid));
      const n = Number(await readFile(cfg.counter, 'utf8'));
      // Not a pause: the section lasts until every other worker with rounds to go waits for the
      // lock (its flag), so each of them tries the lock while this one holds it and an overlap
      // of two holders shows. Another holder's marker ends the wait: the overlap is counted.
      while (mine() && !others().every(settled)) await tick();
      if (!mine()) violations += 1;
      await writeFile(cfg.counter, String(n + 1));
      await unlink(cfg.marker).catch(() => undefined);
    });
  }
  writeFileSync(flag('done', cfg.id), '');
  say('done ' + violations);
} else if (cfg.mode === 'hold') {
  await lock.hold(key, async () => {
    say('held');
    await new Promise((resolve) => process.stdin.once('data', resolve));
  });
  say('released');
  process.exit(0);
} else if (cfg.mode === 'hang') {
  await lock.hold(key, async () => {
    say('held');
    // The event loop stops: no heartbeat, while the process lives on.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60000);
  });
} else if (cfg.mode === 'exit') {
  await lock.hold(key, async () => {
    say('held');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    // As the bridge ends at the end of stdin, SIGTERM or its watchdog: no finally of the work runs.
    process.exit(0);
  });
} else if (cfg.mode === 'wait') {
  say('waiting');
  await lock.hold(key, async () => { say('acquired'); });
  process.exit(0);
}
`;

interface Child {
  readonly process: ChildProcessWithoutNullStreams;
  readonly lines: string[];
  line(predicate: (line: string) => boolean): Promise<string>;
}

const children: Child[] = [];

function start(config: Record<string, unknown>): Child {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, JSON.stringify(config)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.once('exit', () => setImmediate(() => waiters.splice(0).forEach((wake) => wake())));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => lines.push(`stderr ${chunk}`));
  const handle: Child = {
    process: child,
    lines,
    line: (predicate) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const found = lines.find(predicate);
          if (found !== undefined) resolve(found);
          else if (child.exitCode !== null || child.signalCode !== null)
            reject(new Error(`child ended: ${lines.join(' | ')}`));
          else waiters.push(check);
        };
        check();
      }),
  };
  children.push(handle);
  return handle;
}

/**
 * True once the lock `file` of the holder `pid` was renewed at `at` or later, or once it no longer
 * holds that pid (gone or taken over).
 */
function renewedOrTaken(file: string, pid: number | undefined, at: number): boolean {
  try {
    const holder = JSON.parse(readFileSync(file, 'utf8')) as { pid?: number };
    return holder.pid !== pid || statSync(file).mtimeMs >= at;
  } catch {
    return true;
  }
}
/**
 * Counts the timers this process sets from now on with a delay in [`from`, `to`) ms; `reached`
 * resolves at the `count`th. `restore()` puts the real setTimeout back.
 */
function countTimers(
  from: number,
  to: number,
  count: number,
): { reached: Promise<void>; restore: () => void } {
  const real = globalThis.setTimeout;
  let seen = 0;
  let reach = (): void => undefined;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation((handler: () => void, ms?: number) => {
    if (ms !== undefined && ms >= from && ms < to) {
      seen += 1;
      if (seen === count) reach();
    }
    return real(handler, ms);
  });
  return { reached, restore: () => spy.mockRestore() };
}

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal): Promise<void> =>
  signal.aborted
    ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  for (const child of children.splice(0)) if (child.process.exitCode === null) child.process.kill('SIGKILL');
  await cleanup();
});

describe('sign-in lock across processes', () => {
  it('lets exactly one of five processes into the critical section at a time', async () => {
    const counter = path.join(dir, 'counter');
    await writeFile(counter, '0');
    const flags = path.join(dir, 'flags');
    await mkdir(flags);
    const config = {
      mode: 'count',
      dir: path.join(dir, 'locks'),
      rounds: 4,
      counter,
      marker: path.join(dir, 'inside'),
      flags,
      workers: 5,
    };
    const workers = Array.from({ length: 5 }, (_, id) => start({ ...config, id }));
    const done = await Promise.all(workers.map((worker) => worker.line((line) => line.startsWith('done '))));
    expect(done).toEqual(['done 0', 'done 0', 'done 0', 'done 0', 'done 0']);
    expect(await readFile(counter, 'utf8')).toBe('20');
    expect(await readdir(path.join(dir, 'locks'))).toEqual([]);
  });

  it('takes over from a holder killed with SIGKILL through its pid, long before the stale bound', async () => {
    const locks = path.join(dir, 'locks');
    const holder = start({ mode: 'hold', dir: locks, lock: { heartbeatMs: 200 } });
    await holder.line((line) => line === 'held');
    // A stale bound of 10 minutes: only the pid check can let the waiter in within the test.
    const waiter = start({ mode: 'wait', dir: locks, lock: { staleMs: 600_000 } });
    await waiter.line((line) => line === 'waiting');
    // That a live holder keeps the lock is the subject of 'never takes over from a live holder'.
    holder.process.kill('SIGKILL');
    await waiter.line((line) => line === 'acquired');
    expect(waiter.lines).toContain(
      `log warn the sign-in lock of another bridge process is taken over: its process ${holder.process.pid} ended`,
    );
  });

  it('a holder that exits (process.exit) while it holds the lock deletes its lock file', async () => {
    const locks = path.join(dir, 'locks');
    const holder = start({ mode: 'exit', dir: locks });
    await holder.line((line) => line === 'held');
    expect(await readdir(locks)).toEqual([LOCK_NAME]);
    const exited = new Promise((resolve) => holder.process.once('exit', (code) => resolve(code)));
    holder.process.stdin.write('exit\n');
    expect(await exited).toBe(0);
    expect(await readdir(locks)).toEqual([]);
  });

  it.each(['SIGTERM', 'SIGINT', 'SIGHUP'] as const)(
    'a holder that gets %s while it holds the lock (nothing else handles it) deletes its lock file and ends on the signal',
    async (signal) => {
      const locks = path.join(dir, 'locks');
      // As a sign-in that waits for the browser: the work under the lock never ends by itself.
      const holder = start({ mode: 'hold', dir: locks });
      await holder.line((line) => line === 'held');
      expect(await readdir(locks)).toEqual([LOCK_NAME]);
      const exited = new Promise((resolve) =>
        holder.process.once('exit', (code, by) => resolve({ code, by })),
      );
      holder.process.kill(signal);
      expect(await exited).toEqual({ code: null, by: signal });
      expect(await readdir(locks)).toEqual([]);
    },
  );

  it('takes over from a hung holder (alive, heartbeat stopped) after the stale bound', async () => {
    const locks = path.join(dir, 'locks');
    const holder = start({ mode: 'hang', dir: locks, lock: { heartbeatMs: 200 } });
    await holder.line((line) => line === 'held');
    const waiter = start({ mode: 'wait', dir: locks, lock: { staleMs: 1_500 } });
    await waiter.line((line) => line === 'acquired');
    expect(holder.process.exitCode).toBeNull(); // still alive: the heartbeat, not the pid, decided
    expect(waiter.lines).toContain(
      'log warn the sign-in lock of another bridge process is taken over: its heartbeat stopped',
    );
  });

  it('never takes over from a live holder, even one holding for three stale bounds', async () => {
    const locks = path.join(dir, 'locks');
    const holder = start({ mode: 'hold', dir: locks, lock: { heartbeatMs: 200 } });
    await holder.line((line) => line === 'held');
    const file = path.join(locks, LOCK_NAME);
    const heldSince = statSync(file).mtimeMs;
    const waiter = start({ mode: 'wait', dir: locks, lock: { staleMs: 1_000 } });
    await waiter.line((line) => line === 'log info waits for the sign-in of another bridge process');
    // real timer: the stale bound is judged on the file's mtime against the clock, in another
    // process, which no virtual clock of this one can move. The wait is for the holder's heartbeat
    // that renews the file three stale bounds after it was taken (or for the file to change hands,
    // which the assertion below then reports), so the waiter polled through all three bounds.
    await waitFor(() => renewedOrTaken(file, holder.process.pid, heldSince + 3_000), {
      what: 'a heartbeat three stale bounds after the lock was taken',
    });
    expect(waiter.lines).toEqual(['waiting', 'log info waits for the sign-in of another bridge process']);
    holder.process.stdin.write('release\n');
    await waiter.line((line) => line === 'acquired');
    expect(holder.lines).toContain('released');
    expect(waiter.lines).toEqual([
      'waiting',
      'log info waits for the sign-in of another bridge process',
      'acquired',
    ]);
  });
});

describe('sign-in lock within one process', () => {
  it('holds a lock file named by the hash of the key, with pid and host, and deletes it after', async () => {
    const lock = createFileLock({ directory: dir });
    const seen = await lock.hold(
      KEY,
      async () => JSON.parse(await readFile(path.join(dir, LOCK_NAME), 'utf8')) as unknown,
    );
    expect(seen).toMatchObject({ pid: process.pid, host: hostname() });
    expect(await readdir(dir)).toEqual([]);
  });

  it('on release deletes the lock file only while it holds its own owner id', async () => {
    const logger = recordingLogger();
    const lock = createFileLock({ directory: dir, heartbeatMs: 50, logger });
    const other = JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'someone-else' });
    await lock.hold(KEY, async (held) => {
      await writeFile(path.join(dir, LOCK_NAME), other);
      // The next heartbeat finds the other owner and ends the hold's signal.
      await aborted(held.signal);
    });
    expect(await readFile(path.join(dir, LOCK_NAME), 'utf8')).toBe(other);
    expect(logger.lines).toEqual([
      'tokens: warn: the sign-in lock of this process was taken over by another bridge process',
    ]);
  });

  it('tells the work of a lost hold: its signal aborts and confirm() rejects', async () => {
    const lock = createFileLock({ directory: dir, heartbeatMs: 50 });
    const seen = await lock.hold(KEY, async (held) => {
      await held.confirm(); // still ours
      const before = held.signal.aborted;
      await writeFile(path.join(dir, LOCK_NAME), JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'x' }));
      await aborted(held.signal);
      const reason = (held.signal.reason as Error).message;
      const confirmed = await held.confirm().then(
        () => 'confirmed',
        (error: unknown) => (error as Error).message,
      );
      return { before, reason, confirmed };
    });
    expect(seen).toEqual({
      before: false,
      reason: 'the sign-in lock was taken over by another bridge process',
      confirmed: 'the sign-in lock was taken over by another bridge process',
    });
  });

  it('confirm() finds a lost hold before the heartbeat does', async () => {
    const lock = createFileLock({ directory: dir, heartbeatMs: 600_000 });
    const seen = await lock.hold(KEY, async (held) => {
      await writeFile(path.join(dir, LOCK_NAME), JSON.stringify({ pid: 1, host: 'elsewhere', owner: 'x' }));
      const confirmed = await held.confirm().then(
        () => 'confirmed',
        () => 'lost',
      );
      return { confirmed, aborted: held.signal.aborted };
    });
    expect(seen).toEqual({ confirmed: 'lost', aborted: true });
  });

  it('confirm() waits for a waiter that judges the lock right now, then finds the hold lost', async () => {
    const lock = createFileLock({ directory: dir, heartbeatMs: 600_000, pollMs: 20 });
    const file = path.join(dir, LOCK_NAME);
    const seen = await lock.hold(KEY, async (held) => {
      // A waiter found our heartbeat stale (we stalled) and holds the break file: it is about to
      // delete the lock.
      await writeFile(`${file}.break`, '1');
      // confirm()'s pause between two looks at the break file (pollMs 20, so 10 to 30 ms) marks
      // a poll: it must still wait after three of them.
      const polls = countTimers(10, 30, 3);
      try {
        const confirming = held.confirm().then(
          () => 'confirmed',
          () => 'lost',
        );
        const first = await Promise.race([polls.reached.then(() => 'still waits'), confirming]);
        // force: a confirm() that did not wait has already judged, and deleted the break file.
        await rm(file, { force: true });
        await rm(`${file}.break`, { force: true });
        return { first, confirmed: await confirming };
      } finally {
        polls.restore();
      }
    });
    expect(seen).toEqual({ first: 'still waits', confirmed: 'lost' });
  });

  it('ends a wait with the abort signal', async () => {
    await mkdir(dir, { recursive: true });
    const first = createFileLock({ directory: dir });
    const logger = recordingLogger();
    const second = createFileLock({ directory: dir, logger });
    const { release, held } = await holdUntilReleased(first);
    const controller = new AbortController();
    const waiting = second.hold(KEY, () => Promise.resolve('ran'), { signal: controller.signal });
    // The waiter's line comes right before its first poll: the abort reaches a waiting hold.
    await waitFor(() =>
      logger.lines.some((line) => line.includes('waits for the sign-in of another bridge process')),
    );
    controller.abort(new Error('stdin ended'));
    await expect(waiting).rejects.toThrow('stdin ended');
    release();
    await held;
  });

  it('does not run work that was aborted while queued behind a hold of the same process', async () => {
    const lock = createFileLock({ directory: dir });
    const { release, held } = await holdUntilReleased(lock);
    const controller = new AbortController();
    let ran = false;
    const queued = lock.hold(KEY, () => Promise.resolve((ran = true)), { signal: controller.signal });
    controller.abort(new Error('stdin ended'));
    release();
    await held;
    await expect(queued).rejects.toThrow('stdin ended');
    expect(ran).toBe(false);
  });

  it('makes the lock directory again when it is deleted while a hold waits', async () => {
    const locks = path.join(dir, 'locks');
    const first = createFileLock({ directory: locks });
    const logger = recordingLogger();
    const second = createFileLock({ directory: locks, pollMs: 20, logger });
    const { release, held } = await holdUntilReleased(first);
    const waiting = second.hold(KEY, () => Promise.resolve('ran'));
    // The waiter's line comes right before its first poll: the directory goes while it waits.
    await waitFor(() =>
      logger.lines.some((line) => line.includes('waits for the sign-in of another bridge process')),
    );
    // The waiter may write into the directory while it goes: rm retries on ENOTEMPTY.
    await rm(locks, { recursive: true, force: true, maxRetries: 10, retryDelay: 5 });
    release();
    await held;
    await expect(waiting).resolves.toBe('ran');
  });
});
