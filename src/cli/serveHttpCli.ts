/**
 * `serve`: the HTTP front end from the command line (docs/cli.md#cli-serve). It sets up the
 * sign-in of a URL upstream (one for every session), starts serveHttp, prints the one line
 * `<program>: serve: listening on <url>` on stderr, and on SIGINT or SIGTERM ends the sessions,
 * closes the server and stops the upstream: exit code 0. A server that cannot listen is 1; a
 * forced token store that does not open is 2.
 */
import type { Logger } from '../ports/logger.js';
import type { HttpServeOptions, ServeOptions } from './args.js';
import { formatDiagnostic } from '../node/log.js';
import { serveHttp } from '../node/serveHttp.js';
import { shownAddress } from '../edges/httpFront/listen.js';
import type { StdioUpstream } from '../node/serveStdio.js';
import type { Profile } from '../profiles/profile.js';
import { executableInputChecks } from './inputChecks.js';
import { listenLimits } from './listenLimits.js';
import { packageVersion } from './version.js';
import { SERVE_TOKEN_ENV } from './httpServeOptions.js';
import type { SignInSetup } from './signInSetup.js';

function upstreamOf(options: ServeOptions): StdioUpstream {
  const upstream = options.upstream;
  if (upstream.kind === 'command') return upstream;
  return {
    kind: 'url',
    url: upstream.url,
    headers: options.headers.map(({ name, value }) => ({ name, value })),
    ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
  };
}

/** Serves until the first SIGINT or SIGTERM; resolves with the exit code. */
export async function runServeHttp(
  options: ServeOptions,
  http: HttpServeOptions,
  logger: Logger,
  profile: Profile,
): Promise<number> {
  for (const warning of options.warnings) logger.log(profile.logScope, 'warn', warning);
  const upstream = options.upstream;
  let signIn: SignInSetup | undefined;
  if (upstream.kind === 'url' && options.signIn !== undefined) {
    const { setUpSignIn } = await import('./signInSetup.js');
    signIn = await setUpSignIn(
      {
        url: upstream.url,
        signIn: options.signIn,
        env: process.env,
        profile,
        ...(options.caPem === undefined ? {} : { caPem: options.caPem }),
      },
      logger,
    );
    if (!signIn.ok) {
      process.stderr.write(`${formatDiagnostic(signIn.message, profile.name, profile.logScope)}\n`);
      return 2;
    }
  }
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  let server: Awaited<ReturnType<typeof serveHttp>>;
  try {
    server = await serveHttp(profile, upstreamOf(options), {
      host: http.host,
      port: http.port,
      allowOrigins: http.allowOrigins,
      ...(http.token === undefined ? {} : { token: http.token }),
      ...(http.maxSessions === undefined ? {} : { maxSessions: http.maxSessions }),
      ...(http.maxPending === undefined ? {} : { maxPending: http.maxPending }),
      ...(http.maxBodyBytes === undefined ? {} : { maxBodyBytes: http.maxBodyBytes }),
      ...(http.sessionIdleMs === undefined ? {} : { sessionIdleMs: http.sessionIdleMs }),
      ...(http.bodyTimeoutMs === undefined ? {} : { bodyTimeoutMs: http.bodyTimeoutMs }),
      ...(http.maxConnections === undefined ? {} : { maxConnections: http.maxConnections }),
      ...(http.maxSessionBufferBytes === undefined
        ? {}
        : { maxSessionBufferBytes: http.maxSessionBufferBytes }),
      ...(http.metrics === true ? { metrics: true } : {}),
      version: packageVersion(),
      ...(options.name === undefined ? {} : { name: options.name }),
      logger,
      limits: {
        discoverTimeoutMs: options.discoverTimeoutMs,
        ...listenLimits(options),
        ...(http.maxInFlight === undefined ? {} : { maxInFlight: http.maxInFlight }),
      },
      maxLineBytes: options.maxLineBytes,
      maxResponseBytes: options.maxResponseBytes,
      // The serve token is for the clients only, never for the upstream child (docs/serve.md#serve-security).
      env: withoutServeToken(process.env),
      checks: executableInputChecks,
      ...(signIn?.ok === true ? { signIn: { auth: signIn.auth, consent: signIn.consent } } : {}),
    });
  } catch (error: unknown) {
    process.stderr.write(`${formatDiagnostic(listenFailure(error, http), profile.name, 'serve')}\n`);
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    if (signIn?.ok === true) signIn.close();
    return 1;
  }
  // The one line a caller waits for (docs/cli.md#cli-serve).
  process.stderr.write(`${profile.name}: serve: listening on ${server.url}\n`);
  await stopped;
  await server.close();
  if (signIn?.ok === true) signIn.close();
  setImmediate(() => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  });
  return 0;
}

/** The environment of the upstream child: the process's, without the serve token. */
function withoutServeToken(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { [SERVE_TOKEN_ENV]: _token, ...rest } = env;
  return rest;
}

/**
 * The line of a server that cannot listen (docs/serve.md#serve-loopback): the address that
 * failed, its code, and when it is the other loopback address, why that one matters.
 */
export function listenFailure(
  error: unknown,
  http: { readonly host: string; readonly port: number },
): string {
  const { code, address, port } = error as { code?: unknown; address?: unknown; port?: unknown };
  const why = typeof code === 'string' ? ` (${code})` : '';
  const failed = typeof address === 'string' ? address : http.host;
  const shown = `${shownAddress(failed)}:${typeof port === 'number' ? port : http.port}`;
  if (failed === http.host || (http.host === 'localhost' && failed === '127.0.0.1')) {
    return `the server cannot listen on ${shown}${why}`;
  }
  return (
    `the server cannot listen on ${shown}${why}, the other loopback address of ${shownAddress(http.host)}: ` +
    'another program holds it, and a client that resolves localhost to it would reach that program'
  );
}
