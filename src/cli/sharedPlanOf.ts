/**
 * How the shared process turns a shim's hello into a session's plan (docs/shared.md#sharing-key):
 * the executable's own parse of the command line with the shim's environment, so a shim behaves as
 * the stdio bridge with the same arguments, and the sharing key of its upstream.
 */
import { basename } from 'node:path';
import type { SharedHello } from '../edges/sharedSocket/records.js';
import { fallbackServerName } from '../codec/initializeResult.js';
import { createStderrLogger, formatDiagnostic } from '../node/log.js';
import type { SharedPlan } from '../node/sharedPlan.js';
import { sharingKeyHash } from '../node/sharedKey.js';
import type { StdioUpstream } from '../node/upstreamConnector.js';
import { genericProfile } from '../profiles/generic.js';
import type { Profile } from '../profiles/profile.js';
import { vscodeProfile } from '../profiles/vscode.js';
import { parseCommandLine } from './args.js';
import type { ServeOptions } from './args.js';
import { usageText } from './help.js';
import { executableInputChecks } from './inputChecks.js';
import { listenLimits } from './listenLimits.js';
import { executableBridge } from './run.js';
import { packageVersion } from './version.js';

/** docs/shared.md#shared-lifecycle: an upstream stays this long after its last session. */
export const DEFAULT_GRACE_MS = 30_000;

const profileNamed = (name: string): Profile =>
  name === genericProfile.name ? genericProfile : vscodeProfile;

/** The key's summary: the command's name or the URL's origin, never a secret. */
function summaryOf(options: ServeOptions): string {
  const upstream = options.upstream;
  if (upstream.kind === 'command') return basename(upstream.argv[0] ?? '');
  try {
    return new URL(upstream.url).origin;
  } catch {
    return 'url';
  }
}

/** The upstream of a session and its sharing key (docs/shared.md#sharing-key). */
function upstreamOf(
  hello: SharedHello,
  options: ServeOptions,
  profile: Profile,
): { readonly upstream: StdioUpstream; readonly key: string } {
  const source = options.upstream;
  const upstream: StdioUpstream =
    source.kind === 'command'
      ? { kind: 'command', argv: source.argv, cwd: hello.cwd }
      : {
          kind: 'url',
          url: source.url,
          headers: options.headers.map(({ name, value }) => ({ name, value })),
          ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
        };
  // docs/shared.md#sharing-key: what cannot be per session is part of the key.
  const key = sharingKeyHash(
    {
      profile: profile.name,
      ...(source.kind === 'command' ? { argv: source.argv, cwd: hello.cwd } : { url: source.url }),
      headers: options.headers.map(({ name, value }) => [name, value]),
      caPem: options.caPem ?? null,
      signIn: options.signIn ?? null,
      maxLineBytes: options.maxLineBytes,
      maxResponseBytes: options.maxResponseBytes,
    },
    hello.env,
  );
  return { upstream, key };
}

/** A hello as the plan of a session, with the executable's parse of its command line. */
export function planOf(hello: SharedHello): SharedPlan {
  const profile = profileNamed(hello.profile);
  const diagnostic = (message: string): string => formatDiagnostic(message, profile.name, profile.logScope);
  const parsed = parseCommandLine(hello.argv, hello.env, packageVersion(), profile);
  if (parsed.kind === 'error') {
    return {
      kind: 'refuse',
      lines: [diagnostic(parsed.message), ...usageText(profile).split('\n')],
      code: 2,
    };
  }
  if (parsed.kind !== 'serve') {
    return {
      kind: 'refuse',
      lines: [diagnostic('only the stdio forms of the bridge can be shared')],
      code: 2,
    };
  }
  const options = parsed.options;
  const source = options.upstream;
  const { upstream, key } = upstreamOf(hello, options, profile);
  const signInOptions = options.signIn;
  return {
    kind: 'session',
    key,
    summary: summaryOf(options),
    upstream,
    env: hello.env,
    maxLineBytes: options.maxLineBytes,
    maxResponseBytes: options.maxResponseBytes,
    graceMs: hello.graceMs ?? DEFAULT_GRACE_MS,
    logLevel: options.logLevel,
    program: profile.name,
    warnings: options.warnings,
    session: {
      profile,
      version: packageVersion(),
      fallbackName: fallbackServerName({
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(source.kind === 'command' ? { command: source.argv[0] ?? '' } : { url: source.url }),
        profileName: profile.name,
      }),
      limits: { discoverTimeoutMs: options.discoverTimeoutMs, ...listenLimits(options) },
      checks: executableInputChecks,
      compose: executableBridge(profile),
      maxLineBytes: options.maxLineBytes,
      scope: profile.logScope,
    },
    ...(source.kind === 'url' && signInOptions !== undefined
      ? {
          signIn: async (writeSignInLine: (line: string) => void) => {
            const { setUpSignIn } = await import('./signInSetup.js');
            return setUpSignIn(
              {
                url: source.url,
                signIn: signInOptions,
                env: hello.env,
                profile,
                ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
              },
              createStderrLogger(options.logLevel, undefined, profile.name),
              writeSignInLine,
            );
          },
        }
      : {}),
  };
}
