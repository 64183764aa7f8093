/**
 * The texts of `--help` and of the usage lines printed after a diagnostic
 * (docs/cli.md#cli-forms), for the executable of a profile: its name, its default redirect
 * port and how it calls its client. Both end without a newline; main() adds it.
 */
import type { Profile } from '../profiles/profile.js';
import { vscodeProfile } from '../profiles/vscode.js';

/** How the help names the client: as the subject of "Connects", and elsewhere. */
interface ClientWords {
  readonly subject: string;
  readonly object: string;
  /** The sandbox of SANDBOX_RUNTIME. */
  readonly sandbox: string;
}

const VSCODE_CLIENT: ClientWords = {
  subject: 'VS Code',
  object: 'VS Code',
  sandbox: 'the sandbox of VS Code',
};
const ANY_CLIENT: ClientWords = { subject: 'an MCP client', object: 'the client', sandbox: 'a sandbox' };

const clientWords = (profile: Profile): ClientWords =>
  profile.name === vscodeProfile.name ? VSCODE_CLIENT : ANY_CLIENT;

/** The usage lines of the executable of `profile`. */
export const usageText = (profile: Profile): string => {
  const program = profile.name;
  return [
    `Usage: ${program} [options] -- <command> [args...]`,
    `       ${program} [options] <url>`,
    `       ${program} logout [options] <url>`,
    `       ${program} logout [options] --all`,
    `       ${program} logout [options] --idp <issuer>`,
    `       ${program} status [options] [<url>]`,
    `       ${program} add <client> [options] (-- <command> [args...] | <url>)`,
    `       ${program} doctor [options] (-- <command> [args...] | <url>)`,
    `       ${program} serve [--listen 127.0.0.1:<port>] [options] -- <command> [args...]`,
    `       ${program} serve [--listen 127.0.0.1:<port>] [options] <url>`,
    `Run "${program} --help" for the options.`,
  ].join('\n');
};

/** The `--help` text of the executable of `profile`. */
export function helpText(profile: Profile): string {
  const program = profile.name;
  const client = clientWords(profile);
  const redirectPort = profile.identity.redirectPort;
  // A profile whose clients cannot show a URL opens the browser after initialize too.
  const signIn =
    profile.identity.browserWithoutUrlElicitation === true
      ? `Sign-in (URL only): when the server answers 401, the bridge signs in with OAuth in the browser
during initialize; later through a URL question of ${client.object}, or in the browser again when
${client.object} has none. An authorization header of --header or --header-env turns the sign-in
off; the sign-in options are then refused.`
      : `Sign-in (URL only): when the server answers 401, the bridge signs in with OAuth in the browser
during initialize, and later through a URL question of ${client.object}. An authorization header of
--header or --header-env turns the sign-in off; the sign-in options are then refused.`;
  return `Usage: ${program} [options] -- <command> [args...]
       ${program} [options] <url>
       ${program} logout [options] <url>
       ${program} logout [options] --all
       ${program} logout [options] --idp <issuer>
       ${program} status [options] [<url>]
       ${program} add <client> [options] (-- <command> [args...] | <url>)
       ${program} doctor [options] (-- <command> [args...] | <url>)
       ${program} serve [--listen 127.0.0.1:<port>] [options] -- <command> [args...]
       ${program} serve [--listen 127.0.0.1:<port>] [options] <url>

Connects ${client.subject} (MCP 2025-11-25 on stdin and stdout) to an upstream server that speaks
MCP 2026-07-28: a command started as a child process (everything after "--" is the command
and its arguments, unchanged), or a Streamable HTTP server at <url>. The URL must be https,
or http for a loopback host (localhost, *.localhost, 127.0.0.0/8, [::1]); it must not hold a
user name, a password or a fragment.
A client that asks for an older revision in initialize (2025-06-18, 2025-03-26 or 2024-11-05)
is answered in that revision, and gets only what the revision has.

Options come before the URL or "--". Write "--opt value" or "--opt=value". When an option is
given more than once, the last one wins, except --header and --header-env, which add up.

Options:
  --name <name>              server name shown to ${client.object} when the upstream gives none
                             (default: the command's file name without extension, or the
                             host of the URL)
  --log-level <level>        err, warn, info or debug; logs go to stderr (default: info)
  --discover-timeout <s>     seconds to wait for server/discover, 1 to 4294967295
                             (default: 60)
  --max-line-bytes <n>       longest line accepted, in bytes, 1 to 1073741824
                             (default: 67108864)
  --listen-backoff <ms>      first wait before a lost listen stream of list changes opens
                             again, doubled after each loss, in milliseconds, 1 to
                             2147483647 (default: 500)
  --listen-max-backoff <ms>  longest of those waits, in milliseconds, 1 to 2147483647, not
                             less than --listen-backoff (default: 30000)
  --shared                   join this user's shared bridge over a local socket instead of
                             starting an upstream of its own (also MCP_BRIDGE_SHARED=1); see
                             "${program} shared --help" for --shared-grace, --shared-idle,
                             shared status and shared stop
  --help                     print this help and exit
  --version                  print the version and exit

Options for a URL only:
  --header <name>:<value>    send this header on every request (repeatable; default: none).
                             The value is visible on the command line: for secrets, use
                             --header-env
  --header-env <name>=<VAR>  send this header with the value of the environment variable
                             VAR (repeatable; default: none)
  --max-response-bytes <n>   largest JSON response or SSE event, in bytes, 1 to 1073741824
                             (default: 67108864)
  --ca-file <path>           PEM file of CA certificates trusted besides the system ones;
                             a regular file, not a pipe or a device (default: none)

Headers the bridge or the HTTP client sets (Host, Accept, Content-Type, Mcp-*, ...) and
Proxy-Authorization cannot be given.

${signIn}
  --grant <grant>            authorization-code (the browser sign-in); device-code (the
                             device authorization grant: sign in on another device with the
                             URL and code the bridge shows); client-credentials or
                             jwt-bearer (no person: needs --client-id, --client-issuer);
                             id-jag (token exchange at your IdP, then jwt-bearer: needs
                             --client-id, --client-issuer, --idp-issuer, --idp-client-id)
                             (default: authorization-code)
  --client-id <id>           a client registered at the authorization server (default: the
                             client metadata document of the bridge, else registration)
  --client-issuer <url>      the only issuer of --client-id, and the only one that gets the
                             secret of MCP_BRIDGE_CLIENT_SECRET; https (http for a loopback
                             host) (default: any issuer)
  --client-metadata-url <u>  an https URL of another client metadata document, or none for
                             no document; not with --client-id (default: the document of
                             the bridge)
  --client-key-file <path>   PEM private key (P-256, RSA or Ed25519) of --client-id for
                             private_key_jwt; a regular file private to you; not with
                             MCP_BRIDGE_CLIENT_SECRET (default: none)
  --assertion-file <path>    file with the JWT of --grant jwt-bearer, read anew at each grant
                             (default: none)
  --idp-issuer <url>         the IdP of --grant id-jag; its token endpoint from OpenID
                             discovery, https (http for a loopback host) (default: none)
  --idp-client-id <id>       the client of the bridge at that IdP (default: none)
  --idp-token-endpoint <url> the IdP's token endpoint, instead of discovery (default: none)
  --id-token-file <path>     file with your ID token from the IdP, read anew at each grant;
                             a regular file private to you (default: none: a sign-in at the
                             IdP in the browser, kept for every server of that IdP)
  --redirect-port <port>     port of the loopback redirect, 1 to 65535 (default: ${redirectPort})
  --account <label>          a name for one of several sign-ins to the same server, 1 to 64
                             of A-Z a-z 0-9 . _ @ + - (default: default)
  --token-store <store>      auto, keychain, file or memory; auto takes the keychain, then
                             encrypted files when a key is set, then memory (default: auto)
  --token-key-file <path>    regular file with the 64 hex digits of the key of the encrypted
                             files; not with MCP_BRIDGE_TOKEN_KEY (default: none)
  --no-browser               do not open a browser: open the URL of the sign-in line yourself
  --no-dpop                  never use DPoP (RFC 9449), even when the server asks for it
  --sign-in-timeout <s>      seconds a sign-in may take, 1 to 4294967295 (default: 300)

Logout deletes the stored sign-in of the URL (of --account), or with --all every stored
sign-in and the token directory. First it revokes the tokens (RFC 7009) at the authorization
server when it has a revocation endpoint, and says the outcome in one line; the sign-in is
deleted whatever the outcome. It takes --account, --redirect-port, --token-store,
--token-key-file, --ca-file and --log-level.
  --all                      logout only: delete every stored sign-in; not with a URL or
                             --account
  --no-revoke                logout only: delete without contacting the authorization server
  --idp <issuer>             logout only: end the IdP session of --grant id-jag at that IdP
                             (of --account): revoke its tokens, delete it and the sign-ins made
                             from it; not with a URL or --all

Status lists the stored sign-ins on stdout (of the URL, of --account): server, account, store,
issuer, scopes, access token expiry and last refresh; never a token, and of the server URL only
its origin and path, never its query. It also lists the IdP sessions of --grant id-jag: issuer,
account, ID token expiry. It takes --account, --token-store, --token-key-file and
--log-level, and sends no request.
  --json                     status only: print a JSON array (the fields are in the README)

Doctor checks, in order, what the bridge needs of the upstream and of this machine, and prints
one line each: verdict (ok, fail, warn, skip), what it found, and a fix. Run
"${program} doctor --help" for the checks and its exit codes.

Add writes the entry that starts this bridge into the settings file of an MCP client, or
prints it with --print. Run "${program} add --help" for the clients and its options.

Serve runs the bridge as a Streamable HTTP server (MCP 2025-11-25) at
http://127.0.0.1:<port>/mcp for many clients at once, each in a session of its own, on one
upstream (one child, or one connection and one sign-in). It takes the options above and these,
and writes one line "${program}: serve: listening on <url>" on stderr.
SIGINT or SIGTERM stops it with 0.
  --listen <address>:<port>  where to listen; port 0 takes a free port (default:
                             127.0.0.1:0). An address other than loopback needs a token
                             On loopback it listens on 127.0.0.1 and [::1] with one port;
                             another program on the other one stops the start (exit 1)
  --allow-origin <origin>    a browser origin that may call the server, with CORS headers
                             (repeatable; no origin by default)
  --auth-token-file <path>   regular file with the bearer token every request must send;
                             or MCP_BRIDGE_SERVE_TOKEN (no token by default); the file is
                             yours, chmod 600, one line; at least 32 characters (hex: 128 bits)
                             10 wrong tokens a minute from one address: 429 until it ends
  --max-sessions <n>         sessions at once, 1 to 1000000 (default: 100); when full, the
                             idle session used longest ago ends for a new one
  --max-requests <n>         requests in flight in all sessions, 1 to 1000000 (default: 1024)
  --max-session-requests <n> requests in flight in one session, 1 to 1000000 (default: 256)
  --max-body-bytes <n>       largest POST body, in bytes, 1 to 1073741824 (default: 4194304)
  --session-idle <s>         seconds a session without requests and streams lives, 1 to
                             31536000 (default: 1800)
  --body-timeout <ms>        time for a request's headers and body to arrive, in ms, 1 to
                             2147483647 (default: 30000); then 408 and the connection closes
  --max-connections <n>      open connections, 1 to 1000000 (default: 2 x --max-sessions +
                             --max-requests); a new one beyond is closed at once
  --max-session-buffer-bytes <n>
                             bytes of output a session's client may leave unread, 1 to
                             1073741824 (default: 16777216); beyond, the session ends
  --metrics                  GET /metrics in the Prometheus text format on the same listener,
                             with the token rules of /mcp (GET /healthz is always there)

Environment:
  HTTPS_PROXY, https_proxy   proxy for the upstream server (http://[user:password@]host:port)
  ALL_PROXY, all_proxy       proxy when HTTPS_PROXY is not set
  NO_PROXY                   hosts that are not proxied (loopback hosts never are)
  <VAR> of --header-env      header values; must be set and not empty
  MCP_BRIDGE_CLIENT_SECRET   the secret of --client-id (needs --client-issuer); with
                             --grant client-credentials or jwt-bearer, client_secret_basic
                             (client_secret_post when the server offers only that)
  MCP_BRIDGE_IDP_CLIENT_SECRET  the secret of --idp-client-id, sent only to the IdP's
                             token endpoint (client_secret_basic)
  MCP_BRIDGE_TOKEN_KEY       the key of the encrypted token files, 64 hex digits
  SANDBOX_RUNTIME            1 in ${client.sandbox}: a needed sign-in fails at once
  BROWSER                    the program that opens the sign-in (default: open, xdg-open)
  MCP_BRIDGE_SERVE_TOKEN     serve only: the bearer token, when --auth-token-file is not given
  MCP_BRIDGE_SHARED          1: as --shared, for the stdio forms

Exit status:
  0  stdin ended, or --help or --version; logout deleted, or found nothing to delete;
     status listed at least one sign-in
  1  the upstream command stopped, or an internal error; logout failed to delete; status
     found no sign-in
  2  invalid arguments, a missing --header-env variable, an unusable --ca-file, or a token
     store that does not open
  130  a SIGINT, 143 a SIGTERM, that comes while the bridge stops after an earlier one (a
     first SIGINT or SIGTERM stops it with 0); the upstream's process group is killed at once`;
}

/** `doctor --help` (docs/doctor.md). */
export const doctorHelpText = (profile: Profile): string => {
  const program = profile.name;
  return `Usage: ${program} doctor [options] -- <command> [args...]
       ${program} doctor [options] <url>

Checks, in order, what the bridge needs and prints one line each: the verdict (ok, fail, warn,
skip), what it found, and the fix. Never a token, a header value or the query of a URL.
  start / reach          the command starts; or the URL answers (DNS, TLS with --ca-file,
                         the proxy of HTTPS_PROXY, ALL_PROXY and NO_PROXY)
  revision               it answers server/discover (MCP 2026-07-28); else the revision it speaks
URL only, when the server asks for a sign-in (HTTP 401):
  resource-metadata      its protected resource metadata names an authorization server
  authorization-server   that server's metadata: the issuer matches, PKCE S256, endpoints
  registration           the client the bridge would sign in as (--client-id, a client
                         metadata document, or dynamic registration)
  stored-sign-in         a stored sign-in for the URL and --account, and its expiry
  token-store            the token store opens (the keychain answers, or the file key is set)
  redirect-port          127.0.0.1:<--redirect-port> is free for a sign-in in the browser
It takes the options of the bridge for the same upstream, and:
  --json                 print a JSON array of {check, verdict, detail, fix} instead

Exit status: 0 no check failed (warn and skip do not fail); 1 a check failed; 2 invalid
arguments.`;
};
