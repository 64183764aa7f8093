/**
 * Helpers of the package tests: the project's root, `npm` without a shell on every
 * platform (npm is `npm.cmd` on Windows, which cross-spawn runs through cmd.exe with escaping), and
 * the file list `npm pack` would ship.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import crossSpawn from 'cross-spawn';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly type?: string;
  readonly engines?: Record<string, string>;
  readonly bin?: Record<string, string>;
  readonly exports?: Record<string, { types: string; default: string }>;
  readonly files?: string[];
  readonly scripts?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

export const manifest = (): Manifest => JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as Manifest;

/** Runs `npm args` in `cwd`; throws with npm's stderr when it fails. Scripts never run. */
export function npm(args: readonly string[], cwd: string, timeoutMs = 60_000): string {
  const result = crossSpawn.sync('npm', [...args, '--ignore-scripts'], {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    // npm's own variables of an `npm test` run (npm_config_*) would steer the nested npm.
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
    ),
  });
  if (result.status !== 0) {
    throw new Error(`npm ${args.join(' ')} failed (${String(result.status)}): ${result.stderr}`);
  }
  return result.stdout;
}

/** The paths `npm pack` puts in the tarball (dry run: nothing is written; prepack does not run). */
export function packedFiles(): string[] {
  const [report] = JSON.parse(npm(['pack', '--dry-run', '--json'], ROOT)) as [{ files: { path: string }[] }];
  return report.files.map((file) => file.path.replaceAll('\\', '/')).sort();
}
