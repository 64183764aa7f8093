/**
 * The command line of `mcp-bridge-vscode` and `mcp-bridge` (docs/cli.md#cli-forms, docs/http-upstream.md#http-url-rules,
 * docs/http-upstream.md#http-headers): argv in, a ParsedCommand out. The profile of the executable gives the program name of
 * `--help` and `--version` and the sign-in identity (default redirect port, token store places).
 * Pure apart from reading the `--ca-file`; only main() prints and exits.
 */
import type { HeaderSetting } from './headers.js';
import { helpText } from './help.js';
import { httpServeOptions, type HttpServeOptions } from './httpServeOptions.js';
import type { LogoutOptions } from './logout.js';
import { DEFAULTS } from './optionValues.js';
import { scanArgv } from './scan.js';
import { serveOptions, type ServeOptions, type Upstream } from './serveOptions.js';
import type { SignInOptions } from './signInArgs.js';
import type { StatusOptions } from './status.js';
import { logoutOptions, statusOptions } from './storeCommands.js';
import { UsageError } from './usageError.js';
import type { Profile } from '../profiles/profile.js';
import { vscodeProfile } from '../profiles/vscode.js';

export type ParsedCommand =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'version'; readonly text: string }
  | { readonly kind: 'serve'; readonly options: ServeOptions }
  /** `serve [options] -- <command>` or `serve [options] <url>`: the HTTP front end (docs/cli.md#cli-serve). */
  | { readonly kind: 'serve-http'; readonly options: ServeOptions; readonly http: HttpServeOptions }
  /** `logout [options] <url>` or `logout [options] --all` (docs/sign-in.md#sign-in-logout). */
  | { readonly kind: 'logout'; readonly options: LogoutOptions }
  /** `status [options] [<url>]` (README.md, "Status"). */
  | { readonly kind: 'status'; readonly options: StatusOptions }
  /** `message`: the diagnostic text, without the `mcp-bridge-vscode: vscode: error: ` prefix. */
  | { readonly kind: 'error'; readonly message: string };

export type {
  HeaderSetting,
  HttpServeOptions,
  LogoutOptions,
  ServeOptions,
  SignInOptions,
  StatusOptions,
  Upstream,
};

export { DEFAULTS };

/**
 * Parses the arguments after the executable name. `env` is read for `--header-env` only;
 * `version` goes into the `--version` text; `profile` is the executable's (`mcp-bridge-vscode`
 * by default).
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  version: string,
  profile: Profile = vscodeProfile,
): ParsedCommand {
  const scan = scanArgv(argv);
  switch (scan.kind) {
    case 'help':
      return { kind: 'help', text: helpText(profile) };
    case 'version':
      return { kind: 'version', text: `${profile.name} ${version}` };
    case 'error':
      return scan;
    case 'valid':
      try {
        switch (scan.form) {
          case 'logout':
            return { kind: 'logout', options: logoutOptions(scan.args, env, profile) };
          case 'status':
            return { kind: 'status', options: statusOptions(scan.args, env, profile) };
          case 'serve':
            return scan.http === true
              ? {
                  kind: 'serve-http',
                  options: serveOptions(scan.args, env, profile),
                  http: httpServeOptions(scan.args, env, profile.name),
                }
              : { kind: 'serve', options: serveOptions(argv, env, profile) };
        }
      } catch (error) {
        if (error instanceof UsageError) return { kind: 'error', message: error.message };
        throw error;
      }
  }
}
