/**
 * The options of the commands on the token store, `logout` and `status`
 * (docs/sign-in.md#sign-in-logout, docs/cli.md#cli-forms): the store options of the sign-in, and
 * each command's own.
 */
import { parseArgv } from './argvParse.js';
import { caFileOption, checkForm, given, logLevelOption } from './formOptions.js';
import type { LogoutOptions } from './logout.js';
import { DEFAULTS, conflict, last } from './optionValues.js';
import { parseStoreOptions } from './signInArgs.js';
import type { StatusOptions } from './status.js';
import { checkUpstreamUrl } from './urlRules.js';
import { UsageError } from './usageError.js';
import type { Profile } from '../profiles/profile.js';

/** The issuer of `--idp`: an absolute http(s) URL without user info or fragment; the stores hold the rest. */
const issuerUrl = (text: string): string | undefined => {
  const url = URL.parse(text);
  return url !== null &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.hash === ''
    ? text
    : undefined;
};

/** `logout [options] <url>`, `logout [options] --idp <issuer>` and `logout [options] --all` (docs/sign-in.md#sign-in-logout, docs/cli.md#cli-forms). */
export function logoutOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
): LogoutOptions {
  const { values, url } = parseArgv(args, profile.name);
  checkForm(values, 'logout');
  const all = given(values, 'all');
  const idp = last(values, 'idp', issuerUrl, 'give the issuer URL of the IdP (an http or https URL)');
  if (idp !== undefined && (all || url !== undefined)) {
    throw conflict('idp', 'logout takes the URL of an upstream server, --idp or --all, only one of them');
  }
  if (all && url !== undefined) {
    throw conflict('all', 'logout takes the URL of an upstream server or --all, not both');
  }
  if (all && given(values, 'account')) {
    throw conflict('account', '--all deletes the stored sign-ins of every account');
  }
  if (!all && idp === undefined && url === undefined) {
    throw new UsageError(
      'the URL of the upstream server is missing: give it after the options of logout, or give --all',
    );
  }
  const logLevel = logLevelOption(values);
  if (url !== undefined) checkUpstreamUrl(url);
  const store = parseStoreOptions(values, env, profile.identity.redirectPort);
  const { caPem } = caFileOption(values);
  return {
    ...(url === undefined ? {} : { url }),
    all,
    ...(idp === undefined ? {} : { idp }),
    account: store.account,
    redirectPort: store.redirectPort,
    tokenStore: store.tokenStore,
    ...(store.tokenKeyFile === undefined ? {} : { tokenKeyFile: store.tokenKeyFile }),
    noRevoke: given(values, 'no-revoke'),
    ...(caPem === undefined ? {} : { caPem }),
    logLevel: logLevel ?? DEFAULTS.logLevel,
    // The bridge name of the storage identity is the profile's (docs/sign-in.md#sign-in-stores);
    // main() gives runLogout the rest of the profile's identity (keychain service, token directory).
    bridgeName: profile.name,
  };
}

/** `status [options] [<url>]` (README.md, "Status"): the store options, `--account` as a filter. */
export function statusOptions(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  profile: Profile,
): StatusOptions {
  const { values, url } = parseArgv(args, profile.name);
  checkForm(values, 'status');
  const logLevel = logLevelOption(values);
  if (url !== undefined) checkUpstreamUrl(url);
  const store = parseStoreOptions(values, env, profile.identity.redirectPort);
  return {
    ...(url === undefined ? {} : { url }),
    ...(given(values, 'account') ? { account: store.account } : {}),
    tokenStore: store.tokenStore,
    ...(store.tokenKeyFile === undefined ? {} : { tokenKeyFile: store.tokenKeyFile }),
    json: given(values, 'json'),
    logLevel: logLevel ?? DEFAULTS.logLevel,
    bridgeName: profile.name,
  };
}
