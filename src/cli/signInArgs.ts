/**
 * The sign-in options of the URL form and of `logout` (docs/cli.md#cli-forms, docs/sign-in.md#sign-in-registration, docs/sign-in.md#sign-in-stores,
 * docs/sign-in.md#sign-in-sandbox): values, defaults and conflicts. The secrets come only from the
 * environment (`MCP_BRIDGE_CLIENT_SECRET`, `MCP_BRIDGE_TOKEN_KEY`, trimmed, empty = unset);
 * diagnostics name options and variables, never values.
 */
import { parseGrant, type GrantName } from './grantOption.js';
import { IDP_SECRET_VARIABLE, parseIdp } from './idpArgs.js';
import { parseMachineGrant, type MachineGrantOptions } from './machineGrantArgs.js';
import {
  conflict,
  lastUrl,
  decimal,
  envValue,
  last,
  nonEmpty,
  rangeHint,
  type Values,
} from './optionValues.js';
import { notRegularFile } from './regularFile.js';
import { OPTIONS, optionSpec, type OptionName } from './scan.js';
import { clientIssuerHint, clientMetadataUrlHint } from './urlRules.js';
import { UsageError } from './usageError.js';
import type { IdpSettings } from '../oauth/idp/types.js';
import { NO_METADATA_DOCUMENT } from '../oauth/registration.js';

export type TokenStoreChoice = 'auto' | 'keychain' | 'file' | 'memory';

export const CLIENT_SECRET_VARIABLE = 'MCP_BRIDGE_CLIENT_SECRET';
export const TOKEN_KEY_VARIABLE = 'MCP_BRIDGE_TOKEN_KEY';

/** The default redirect port is the profile's (SignInIdentity.redirectPort). */
export const SIGN_IN_DEFAULTS = {
  account: 'default',
  tokenStore: 'auto',
  signInTimeoutSeconds: 300,
} as const;

/** Where the tokens live and under which identity (shared by the URL form and logout). */
export interface StoreOptions {
  readonly redirectPort: number;
  readonly account: string;
  readonly tokenStore: TokenStoreChoice;
  readonly tokenKeyFile?: string;
  /** `MCP_BRIDGE_TOKEN_KEY`: 64 hex digits, checked. A secret. */
  readonly tokenKey?: string;
}

/** The sign-in of a URL upstream (absent when a static authorization header turns it off). */
export interface SignInOptions extends StoreOptions, MachineGrantOptions {
  /** `--grant` (grantOption.ts); absent: authorization-code, the browser sign-in. */
  readonly grant?: GrantName;
  /** The IdP of `--grant id-jag` (idpArgs.ts); its secret from `MCP_BRIDGE_IDP_CLIENT_SECRET`. */
  readonly idp?: IdpSettings;
  readonly clientId?: string;
  readonly clientIssuer?: string;
  /** `MCP_BRIDGE_CLIENT_SECRET`, only with `--client-id` and `--client-issuer`. A secret. */
  readonly clientSecret?: string;
  /** An https URL, or `none`: no client ID metadata document. */
  readonly clientMetadataUrl?: string;
  readonly noBrowser: boolean;
  /** `--no-dpop` (docs/sign-in.md#sign-in-dpop). */
  readonly noDpop: boolean;
  readonly signInTimeoutMs: number;
  /** `SANDBOX_RUNTIME` trimmed equals `1` (docs/sign-in.md#sign-in-sandbox). */
  readonly sandbox: boolean;
  /** Variables removed from the environment of the browser opener (docs/sign-in.md#sign-in-browser): `--header-env` ones and every secret. */
  readonly secretVariables: readonly string[];
}

type Env = Readonly<Record<string, string | undefined>>;

const MAX_SECONDS = 4_294_967_295;
const TOKEN_STORES: readonly TokenStoreChoice[] = ['auto', 'keychain', 'file', 'memory'];
const ACCOUNT = /^[A-Za-z0-9._@+-]{1,64}$/;
const CLIENT_ID = /^[\x20-\x7e]+$/;
const TOKEN_KEY = /^[0-9A-Fa-f]{64}$/;

const given = (values: Values, name: OptionName): boolean => values(name).length > 0;

/** The store options and their conflicts (docs/sign-in.md#sign-in-stores, docs/cli.md#cli-diagnostics); `defaultRedirectPort` is the profile's. */
export function parseStoreOptions(values: Values, env: Env, defaultRedirectPort: number): StoreOptions {
  const redirectPort = last(values, 'redirect-port', decimal(65_535), rangeHint(65_535, 'a port'));
  const account = last(
    values,
    'account',
    (text) => (ACCOUNT.test(text) ? text : undefined),
    'give 1 to 64 characters of A-Z, a-z, 0-9, ".", "_", "@", "+" and "-"',
  );
  const tokenStore =
    last(
      values,
      'token-store',
      (text) => TOKEN_STORES.find((store) => store === text),
      'give auto, keychain, file or memory',
    ) ?? SIGN_IN_DEFAULTS.tokenStore;
  const tokenKeyFile = last(values, 'token-key-file', nonEmpty, 'it must not be empty');
  const tokenKey = envValue(env, TOKEN_KEY_VARIABLE);
  if (tokenKey !== undefined && !TOKEN_KEY.test(tokenKey)) {
    throw new UsageError(
      `the environment variable ${TOKEN_KEY_VARIABLE} is not valid: give 64 hexadecimal digits`,
    );
  }
  if (tokenKeyFile !== undefined) {
    // A pipe or a device would hang the start when the store reads the key (regularFile.ts).
    const why = notRegularFile(tokenKeyFile);
    if (why !== undefined) throw new UsageError(`the value of --token-key-file is not valid: ${why}`);
    if (tokenStore === 'keychain' || tokenStore === 'memory') {
      throw conflict('token-key-file', `--token-store ${tokenStore} uses no key`);
    }
    if (tokenKey !== undefined) {
      throw conflict(
        'token-key-file',
        `the environment variable ${TOKEN_KEY_VARIABLE} gives the key already; give only one of them`,
      );
    }
  }
  if (tokenStore === 'file' && tokenKey === undefined && tokenKeyFile === undefined) {
    throw new UsageError(
      `--token-store file needs a key: set the environment variable ${TOKEN_KEY_VARIABLE}, or give --token-key-file`,
    );
  }
  return {
    redirectPort: redirectPort ?? defaultRedirectPort,
    account: account ?? SIGN_IN_DEFAULTS.account,
    tokenStore,
    ...(tokenKeyFile === undefined ? {} : { tokenKeyFile }),
    ...(tokenKey === undefined ? {} : { tokenKey }),
  };
}

/** The sign-in options of the URL form, when no static authorization header turns the sign-in off. */
export function parseSignInOptions(
  values: Values,
  env: Env,
  headerEnvVariables: readonly string[],
  defaultRedirectPort: number,
  /** The MCP URL: a loopback http `--client-issuer` only with a loopback one. */
  mcpUrl: string,
): SignInOptions {
  const clientId = last(
    values,
    'client-id',
    (text) => (CLIENT_ID.test(text) ? text : undefined),
    'give the client ID in visible ASCII characters and spaces',
  );
  const clientIssuer = lastUrl(values, 'client-issuer', (text) => clientIssuerHint(text, mcpUrl));
  // `none` turns the client ID metadata document off (the bridge registers dynamically).
  const clientMetadataUrl = lastUrl(values, 'client-metadata-url', (text) =>
    text === NO_METADATA_DOCUMENT ? undefined : clientMetadataUrlHint(text),
  );
  const seconds = last(values, 'sign-in-timeout', decimal(MAX_SECONDS), rangeHint(MAX_SECONDS, 'seconds'));
  const store = parseStoreOptions(values, env, defaultRedirectPort);
  const grant = parseGrant(values);
  const clientSecret = envValue(env, CLIENT_SECRET_VARIABLE);
  if (clientIssuer !== undefined && clientId === undefined) {
    throw conflict('client-issuer', 'it needs --client-id');
  }
  if (clientMetadataUrl !== undefined && clientId !== undefined) {
    throw conflict('client-metadata-url', 'it excludes --client-id');
  }
  if (clientId !== undefined && clientSecret !== undefined && clientIssuer === undefined) {
    throw conflict(
      'client-id',
      `the client secret of ${CLIENT_SECRET_VARIABLE} needs --client-issuer, the only issuer it is sent to`,
    );
  }
  const machine = parseMachineGrant(values, {
    grant,
    clientId,
    clientIssuer,
    clientSecret,
    secretVariable: CLIENT_SECRET_VARIABLE,
  });
  const idp = parseIdp(values, env, grant, mcpUrl);
  return {
    ...store,
    ...machine,
    ...(grant === undefined ? {} : { grant }),
    ...(idp === undefined ? {} : { idp }),
    ...(clientId === undefined ? {} : { clientId }),
    ...(clientIssuer === undefined ? {} : { clientIssuer }),
    // docs/sign-in.md#sign-in-registration: the secret belongs to a pre-registered client only.
    ...(clientSecret === undefined || clientId === undefined ? {} : { clientSecret }),
    ...(clientMetadataUrl === undefined ? {} : { clientMetadataUrl }),
    noBrowser: given(values, 'no-browser'),
    noDpop: given(values, 'no-dpop'),
    signInTimeoutMs: (seconds ?? SIGN_IN_DEFAULTS.signInTimeoutSeconds) * 1000,
    sandbox: envValue(env, 'SANDBOX_RUNTIME') === '1',
    secretVariables: [
      ...new Set([...headerEnvVariables, CLIENT_SECRET_VARIABLE, IDP_SECRET_VARIABLE, TOKEN_KEY_VARIABLE]),
    ],
  };
}

/** docs/http-upstream.md#http-headers: a static authorization header turns the sign-in off. */
export function refuseSignInOptions(values: Values): void {
  const name = (Object.keys(OPTIONS) as OptionName[]).find(
    (option) => optionSpec(option).signIn === true && given(values, option),
  );
  if (name !== undefined) {
    throw conflict(name, 'a static authorization header (--header or --header-env) turns the sign-in off');
  }
}
