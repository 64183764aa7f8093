/**
 * The platform rules of the upstream child ("Windows"), computed by the pure functions of
 * src/edges/processPlan.ts: every case runs on every platform, the platform is an argument.
 */
import { describe, expect, it } from 'vitest';
import { resolveWindowsCommand, treeKillPlan, upstreamSpawnPlan } from '../../src/edges/processPlan.js';

/** A fake file system: the set of files that exist. */
const files =
  (...paths: string[]) =>
  (path: string): boolean =>
    paths.includes(path);

const WIN_ENV = {
  Path: 'C:\\Windows\\system32;C:\\Program Files\\nodejs;C:\\tools',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  ComSpec: 'C:\\Windows\\system32\\cmd.exe',
  SystemRoot: 'C:\\Windows',
};
const NODE_DIR = files('C:\\Program Files\\nodejs\\node.exe', 'C:\\Program Files\\nodejs\\npx.cmd');

describe('upstreamSpawnPlan on POSIX', () => {
  it.each(['linux', 'darwin'] as const)('%s: argv unchanged, own process group, no shell', (platform) => {
    const plan = upstreamSpawnPlan(['npx', '-y', 'a&b', '"q"'], platform, WIN_ENV, files());
    expect(plan).toEqual({
      file: 'npx',
      args: ['-y', 'a&b', '"q"'],
      detached: true,
      windowsVerbatimArguments: false,
    });
  });
});

describe('upstreamSpawnPlan on Windows', () => {
  it('runs an .exe found on Path directly, arguments untouched, no process group', () => {
    expect(upstreamSpawnPlan(['node', 'server.js', 'a&b'], 'win32', WIN_ENV, NODE_DIR)).toEqual({
      file: 'C:\\Program Files\\nodejs\\node.exe',
      args: ['server.js', 'a&b'],
      detached: false,
      windowsVerbatimArguments: false,
    });
  });

  it('runs a .cmd launcher through ComSpec with every argument quoted and escaped', () => {
    const plan = upstreamSpawnPlan(
      ['npx', '-y', '@scope/server', 'a&b|c', 'say "hi"', 'C:\\dir\\'],
      'win32',
      WIN_ENV,
      NODE_DIR,
    );
    expect(plan).toEqual({
      file: 'C:\\Windows\\system32\\cmd.exe',
      args: [
        '/d',
        '/s',
        '/c',
        '"npx ^"-y^" ^"@scope/server^" ^"a^&b^|c^" ^"say^ \\^"hi\\^"^" ^"C:\\dir\\\\^""',
      ],
      detached: false,
      windowsVerbatimArguments: true,
    });
  });

  it('escapes the meta characters of the command itself (a space in the path)', () => {
    const plan = upstreamSpawnPlan(['C:/Program Files/nodejs/npx.cmd', '-v'], 'win32', WIN_ENV, NODE_DIR);
    expect(plan.args).toEqual(['/d', '/s', '/c', '"C:\\Program^ Files\\nodejs\\npx.cmd ^"-v^""']);
  });

  it('escapes twice for an npm cmd-shim in node_modules\\.bin (its own cmd.exe undoes one level)', () => {
    const plan = upstreamSpawnPlan(
      ['C:\\app\\node_modules\\.bin\\server', '-y', 'a&b'],
      'win32',
      WIN_ENV,
      files('C:\\app\\node_modules\\.bin\\server.cmd'),
    );
    expect(plan.args).toEqual([
      '/d',
      '/s',
      '/c',
      '"C:\\app\\node_modules\\.bin\\server ^^^"-y^^^" ^^^"a^^^&b^^^""',
    ]);
  });

  it('treats a .bat like a .cmd and falls back to cmd.exe without ComSpec', () => {
    const plan = upstreamSpawnPlan(
      ['run.bat', 'x'],
      'win32',
      { PATH: 'C:\\tools' },
      files('C:\\tools\\run.bat'),
    );
    expect(plan).toEqual({
      file: 'cmd.exe',
      args: ['/d', '/s', '/c', '"run.bat ^"x^""'],
      detached: false,
      windowsVerbatimArguments: true,
    });
  });

  it('spawns a command it cannot find as given, so that the failure is ENOENT', () => {
    expect(upstreamSpawnPlan(['missing', 'a&b'], 'win32', WIN_ENV, NODE_DIR)).toEqual({
      file: 'missing',
      args: ['a&b'],
      detached: false,
      windowsVerbatimArguments: false,
    });
  });
});

describe('resolveWindowsCommand', () => {
  it('follows the order of Path, then of PATHEXT', () => {
    const both = files('C:\\tools\\srv.exe', 'C:\\tools\\srv.cmd', 'C:\\Program Files\\nodejs\\srv.cmd');
    expect(resolveWindowsCommand('srv', WIN_ENV, both)).toBe('C:\\Program Files\\nodejs\\srv.cmd');
    expect(resolveWindowsCommand('srv', { ...WIN_ENV, Path: 'C:\\tools' }, both)).toBe('C:\\tools\\srv.exe');
    expect(resolveWindowsCommand('srv', { ...WIN_ENV, Path: 'C:\\tools', PATHEXT: '.CMD;.EXE' }, both)).toBe(
      'C:\\tools\\srv.cmd',
    );
  });

  it('reads Path and PATHEXT whatever their case, and strips quotes around a Path entry', () => {
    const env = { path: '"C:\\quoted dir"', pathext: '.BAT' };
    expect(resolveWindowsCommand('go', env, files('C:\\quoted dir\\go.bat'))).toBe('C:\\quoted dir\\go.bat');
  });

  it('keeps a given extension and looks beside a given directory only', () => {
    expect(resolveWindowsCommand('npx.cmd', WIN_ENV, NODE_DIR)).toBe('C:\\Program Files\\nodejs\\npx.cmd');
    expect(resolveWindowsCommand('.\\bin\\node', WIN_ENV, NODE_DIR)).toBeUndefined();
    expect(resolveWindowsCommand('D:\\x\\tool', WIN_ENV, files('D:\\x\\tool.com'))).toBe('D:\\x\\tool.com');
  });
});

describe('treeKillPlan', () => {
  it.each(['linux', 'darwin'] as const)('%s: the signal goes to the process group', (platform) => {
    expect(treeKillPlan(4242, 'SIGTERM', platform, WIN_ENV)).toEqual({
      kind: 'signal',
      target: -4242,
      signal: 'SIGTERM',
    });
    expect(treeKillPlan(4242, 'SIGKILL', platform, WIN_ENV)).toEqual({
      kind: 'signal',
      target: -4242,
      signal: 'SIGKILL',
    });
  });

  it.each(['SIGTERM', 'SIGKILL'] as const)(
    'win32 %s: taskkill from System32 ends the whole tree',
    (signal) => {
      expect(treeKillPlan(4242, signal, 'win32', WIN_ENV)).toEqual({
        kind: 'command',
        file: 'C:\\Windows\\System32\\taskkill.exe',
        args: ['/T', '/F', '/PID', '4242'],
      });
      expect(treeKillPlan(7, signal, 'win32', { SYSTEMROOT: 'D:\\Win' })).toEqual({
        kind: 'command',
        file: 'D:\\Win\\System32\\taskkill.exe',
        args: ['/T', '/F', '/PID', '7'],
      });
    },
  );
});
