/**
 * Runs the steps of a Dockerfile as a script, for a machine without a container engine
 * (docs/install.md#install-container): each stage gets a directory that stands for its file
 * system (a container path `/x` is `<stage dir>/x`); FROM starts a stage (the base image is not
 * fetched: the steps run on this machine's Node.js and npm), WORKDIR, ENV, COPY (from the context,
 * honoring .dockerignore, or `--from` an earlier stage) and RUN (`sh -c` in the working directory)
 * do what they do in a build. USER, EXPOSE, HEALTHCHECK and ENTRYPOINT of the last stage are
 * returned for the test to run.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, posix, relative } from 'node:path';

export interface BuiltImage {
  /** The directory that stands for the last stage's file system. */
  readonly root: string;
  readonly env: Readonly<Record<string, string>>;
  readonly user?: string;
  readonly expose: readonly string[];
  /** Exec form only. */
  readonly entrypoint: readonly string[];
  readonly healthcheck?: readonly string[];
}

interface Stage {
  readonly name?: string;
  readonly root: string;
  workdir: string;
  env: Record<string, string>;
  user?: string;
  expose: string[];
  entrypoint: string[];
  healthcheck?: string[];
}

/** The instructions of `text`: continuation lines joined, comments and blank lines left out. */
export function instructions(text: string): { readonly op: string; readonly args: string }[] {
  return text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op = ''] = line.split(/\s+/);
      return { op: op.toUpperCase(), args: line.slice(op.length).trim() };
    });
}

/** Whether `.dockerignore` (top-level names and `*.ext` patterns only) leaves `path` out. */
const ignoredBy = (patterns: readonly string[]) => (path: string) =>
  path !== '' &&
  patterns.some((pattern) =>
    pattern.startsWith('*')
      ? basename(path).endsWith(pattern.slice(1))
      : path === pattern || path.startsWith(`${pattern}/`),
  );

/** Builds the Dockerfile of `context` into directories under `work`. */
export function runDockerfile(context: string, work: string): BuiltImage {
  const ignoreFile = join(context, '.dockerignore');
  const ignored = ignoredBy(
    existsSync(ignoreFile)
      ? readFileSync(ignoreFile, 'utf8')
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '' && !line.startsWith('#'))
      : [],
  );
  const stages: Stage[] = [];
  const current = (): Stage => {
    const stage = stages.at(-1);
    if (stage === undefined) throw new Error('an instruction before FROM');
    return stage;
  };
  const inStage = (stage: Stage, path: string): string =>
    join(stage.root, posix.isAbsolute(path) ? path : posix.join(stage.workdir, path));
  for (const { op, args } of instructions(readFileSync(join(context, 'Dockerfile'), 'utf8'))) {
    switch (op) {
      case 'FROM': {
        const name = /\sAS\s+(\S+)$/i.exec(args)?.[1];
        const root = join(work, `stage-${stages.length}`);
        mkdirSync(root, { recursive: true });
        stages.push({
          ...(name === undefined ? {} : { name }),
          root,
          workdir: '/',
          env: {},
          expose: [],
          entrypoint: [],
        });
        break;
      }
      case 'WORKDIR':
        current().workdir = posix.resolve(current().workdir, args);
        mkdirSync(inStage(current(), '.'), { recursive: true });
        break;
      case 'ENV': {
        const [name = '', ...value] = args.split('=');
        current().env[name] = value.join('=');
        break;
      }
      case 'COPY': {
        const words = args.split(/\s+/);
        const from = /^--from=(\S+)$/.exec(words[0] ?? '')?.[1];
        const paths = from === undefined ? words : words.slice(1);
        const destination = paths.pop() ?? '';
        const source = from === undefined ? undefined : stages.find((stage) => stage.name === from);
        if (from !== undefined && source === undefined) throw new Error(`no stage ${from}`);
        const target = inStage(current(), destination);
        for (const path of paths) {
          const origin = source === undefined ? join(context, path) : inStage(source, path);
          const into =
            destination.endsWith('/') && statSync(origin).isFile() ? join(target, basename(path)) : target;
          cpSync(origin, into, {
            recursive: true,
            filter: (file) => source !== undefined || !ignored(relative(context, file).split('\\').join('/')),
          });
        }
        break;
      }
      case 'RUN': {
        const run = spawnSync('sh', ['-c', args], {
          cwd: inStage(current(), '.'),
          env: { ...process.env, ...current().env },
          encoding: 'utf8',
        });
        if (run.status !== 0)
          throw new Error(`RUN ${args} failed (${run.status}): ${run.stderr.slice(-2000)}`);
        break;
      }
      case 'USER':
        current().user = args;
        break;
      case 'EXPOSE':
        current().expose.push(...args.split(/\s+/));
        break;
      case 'ENTRYPOINT':
        current().entrypoint = JSON.parse(args) as string[];
        break;
      case 'HEALTHCHECK': {
        const command = /\bCMD\s+(\[.*\])$/.exec(args)?.[1];
        if (command !== undefined) current().healthcheck = JSON.parse(command) as string[];
        break;
      }
      default:
        throw new Error(`the instruction ${op} is not run by this script`);
    }
  }
  const last = current();
  return {
    root: last.root,
    env: last.env,
    ...(last.user === undefined ? {} : { user: last.user }),
    expose: last.expose,
    entrypoint: last.entrypoint,
    ...(last.healthcheck === undefined ? {} : { healthcheck: last.healthcheck }),
  };
}
