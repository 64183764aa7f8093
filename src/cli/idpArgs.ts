/**
 * The options of the IdP of `--grant id-jag` (docs/sign-in.md#sign-in-id-jag): `--idp-issuer`,
 * `--idp-client-id`, `--idp-token-endpoint`, `--id-token-file`, and the IdP client's secret from
 * `MCP_BRIDGE_IDP_CLIENT_SECRET` only (trimmed, empty = unset). Each option needs `--grant id-jag`;
 * the grant needs the first two. The secret is read only for that grant and goes to the IdP's token
 * endpoint only. Diagnostics name options and variables, never values.
 */
import type { IdpSettings } from '../oauth/idp/types.js';
import { checkSignInEndpoint } from '../oauth/authorizationUrl.js';
import type { GrantName } from './grantOption.js';
import { fileOption } from './machineGrantArgs.js';
import { conflict, envValue, last, lastUrl, type Values } from './optionValues.js';
import type { OptionName } from './scan.js';
import { clientIssuerHint } from './urlRules.js';

export const IDP_SECRET_VARIABLE = 'MCP_BRIDGE_IDP_CLIENT_SECRET';

const CLIENT_ID = /^[\x20-\x7e]+$/;

type Env = Readonly<Record<string, string | undefined>>;

const IDP_OPTIONS: readonly OptionName[] = [
  'idp-issuer',
  'idp-client-id',
  'idp-token-endpoint',
  'id-token-file',
];

/** The IdP of `--grant id-jag`; undefined for every other grant. `mcpUrl`: loopback http only for a loopback one. */
export function parseIdp(
  values: Values,
  env: Env,
  grant: GrantName | undefined,
  mcpUrl: string,
): IdpSettings | undefined {
  const issuer = lastUrl(values, 'idp-issuer', (text) => clientIssuerHint(text, mcpUrl));
  const tokenEndpoint = lastUrl(values, 'idp-token-endpoint', (text) => checkSignInEndpoint(text, mcpUrl));
  const clientId = last(
    values,
    'idp-client-id',
    (text) => (CLIENT_ID.test(text) ? text : undefined),
    'give the client ID in visible ASCII characters and spaces',
  );
  const idTokenFile = fileOption(values, 'id-token-file');
  if (grant !== 'id-jag') {
    const given = IDP_OPTIONS.find((name) => values(name).length > 0);
    if (given !== undefined) throw conflict(given, 'it needs --grant id-jag');
    return undefined;
  }
  if (issuer === undefined) throw conflict('grant', '--grant id-jag needs --idp-issuer');
  if (clientId === undefined) throw conflict('grant', '--grant id-jag needs --idp-client-id');
  const clientSecret = envValue(env, IDP_SECRET_VARIABLE);
  return {
    issuer,
    clientId,
    ...(clientSecret === undefined ? {} : { clientSecret }),
    ...(tokenEndpoint === undefined ? {} : { tokenEndpoint }),
    ...(idTokenFile === undefined ? {} : { idTokenFile }),
  };
}
