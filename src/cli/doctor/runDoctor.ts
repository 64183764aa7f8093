/**
 * `<program> doctor [options] -- <command>` and `doctor [options] <url>` (docs/doctor.md): runs the
 * checks in order and prints one line each (or `--json`: one JSON array of
 * `{check, verdict, detail, fix}`). Exit codes: 0 when no check failed, 1 when one did, 2 for
 * invalid arguments. Loaded by main.ts without run.ts: doctor loads no RxJS and no bridge.
 */
import { createSignInFetch } from '../../edges/http/signInFetch.js';
import { formatDiagnostic } from '../../node/log.js';
import type { Profile } from '../../profiles/profile.js';
import { accountEnvironment } from '../accountStores.js';
import { signInSettings } from '../signInSettings.js';
import { packageVersion } from '../version.js';
import { exitCodeOf, lineOf, result, type CheckResult } from './checks.js';
import { commandChecks } from './commandChecks.js';
import { parseDoctorCommand, type DoctorOptions } from './doctorArgs.js';
import { redirectPortCheck, storeChecks } from './localChecks.js';
import { signInChecks } from './signInChecks.js';
import { urlReach } from './urlReach.js';

export interface DoctorIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly write: (text: string) => void;
  readonly writeError: (text: string) => void;
  readonly now: () => number;
}

const SIGN_IN_CHECKS = [
  'resource-metadata',
  'authorization-server',
  'registration',
  'stored-sign-in',
  'token-store',
  'redirect-port',
];

const skipAll = (why: string): CheckResult[] => SIGN_IN_CHECKS.map((check) => result(check, 'skip', why));

/** The checks of a URL upstream, in order. */
async function urlChecks(
  options: DoctorOptions,
  url: string,
  profile: Profile,
  io: DoctorIo,
): Promise<CheckResult[]> {
  const serve = options.serve;
  const signInFetch = createSignInFetch({
    env: io.env,
    mcpUrl: url,
    ...(serve.caPem === undefined ? {} : { caPem: serve.caPem }),
  });
  try {
    const reach = await urlReach({
      fetch: signInFetch.fetch,
      url,
      headers: serve.headers,
      env: io.env,
      discoverTimeoutMs: serve.discoverTimeoutMs,
      version: packageVersion(),
    });
    const checks = [...reach.checks];
    const signIn = serve.signIn;
    if (signIn === undefined)
      return [...checks, ...skipAll('the sign-in is off (an authorization header is given)')];
    if (!reach.answered) return [...checks, ...skipAll('the URL did not answer')];
    const settings = signInSettings({ url, signIn, env: io.env, profile });
    if (reach.signIn === undefined) {
      checks.push(
        ...['resource-metadata', 'authorization-server', 'registration'].map((check) =>
          result(check, 'skip', 'the server asks for no sign-in'),
        ),
      );
    } else {
      checks.push(
        ...(await signInChecks({
          fetch: signInFetch.fetch,
          url,
          ...(reach.signIn.resourceMetadata === undefined
            ? {}
            : { resourceMetadata: reach.signIn.resourceMetadata }),
          registration: settings.auth,
          timeoutMs: serve.discoverTimeoutMs,
        })),
      );
    }
    const stores = await storeChecks({
      url,
      account: signIn.account,
      tokenStore: signIn.tokenStore,
      ...(signIn.tokenKeyFile === undefined ? {} : { tokenKeyFile: signIn.tokenKeyFile }),
      bridgeName: profile.name,
      redirectPort: signIn.redirectPort,
      environment: { ...accountEnvironment(profile), env: io.env },
      now: io.now(),
    });
    checks.push(...stores);
    const port = await redirectPortCheck(signIn.redirectPort);
    // The port matters for a sign-in in the browser: not when a usable sign-in is stored, nor
    // when the server asks for none.
    const browserNeeded =
      reach.signIn !== undefined && stores.every((c) => c.check !== 'stored-sign-in' || c.verdict !== 'ok');
    checks.push(port.verdict === 'fail' && !browserNeeded ? { ...port, verdict: 'warn' } : port);
    return checks;
  } finally {
    signInFetch.close();
  }
}

/** Runs doctor on the arguments after the word `doctor`; resolves with the exit code. */
export async function runDoctor(args: readonly string[], profile: Profile, io: DoctorIo): Promise<number> {
  const parsed = parseDoctorCommand(args, io.env, profile);
  if (parsed.kind === 'help') {
    const { doctorHelpText } = await import('../help.js');
    io.write(`${doctorHelpText(profile)}\n`);
    return 0;
  }
  if (parsed.kind === 'error') {
    io.writeError(`${formatDiagnostic(parsed.message, profile.name, profile.logScope)}\n`);
    return 2;
  }
  const { options } = parsed;
  const upstream = options.serve.upstream;
  const [command, ...rest] = upstream.kind === 'command' ? upstream.argv : [];
  const checks =
    upstream.kind === 'url'
      ? await urlChecks(options, upstream.url, profile, io)
      : command === undefined
        ? [result('start', 'fail', 'no command is given', 'put the upstream command after "--"')]
        : await commandChecks({
            argv: [command, ...rest],
            discoverTimeoutMs: options.serve.discoverTimeoutMs,
            maxLineBytes: options.serve.maxLineBytes,
            version: packageVersion(),
          });
  io.write(options.json ? `${JSON.stringify(checks, null, 2)}\n` : `${checks.map(lineOf).join('\n')}\n`);
  return exitCodeOf(checks);
}

/** main.ts: runs doctor on the process and exits with its code. */
export function runDoctorCommand(args: readonly string[], profile: Profile): void {
  runDoctor(args, profile, {
    env: process.env,
    write: (text) => void process.stdout.write(text),
    writeError: (text) => void process.stderr.write(text),
    now: Date.now,
  }).then(
    (code) => process.exit(code),
    () => {
      process.stderr.write(`${formatDiagnostic('doctor failed', profile.name, profile.logScope)}\n`);
      process.exit(1);
    },
  );
}
