/**
 * The options of the grants without a person (docs/sign-in.md#sign-in-grants): `--client-key-file`
 * and `--assertion-file`, and what `--grant client-credentials`, `--grant jwt-bearer` and
 * `--grant id-jag` need of the client at the authorization server. Every credential of these grants
 * goes to the issuer of `--client-issuer` only (SECURITY.md "Grants without a person"), so all three
 * need it (the IdP of id-jag: idpArgs.ts). Diagnostics name options and variables, never values.
 */
import type { GrantName } from './grantOption.js';
import { conflict, last, nonEmpty, type Values } from './optionValues.js';
import { notRegularFile } from './regularFile.js';
import type { OptionName } from './scan.js';
import { UsageError } from './usageError.js';

export interface MachineGrantOptions {
  readonly clientKeyFile?: string;
  readonly assertionFile?: string;
}

export interface MachineGrantInput {
  readonly grant: GrantName | undefined;
  readonly clientId: string | undefined;
  readonly clientIssuer: string | undefined;
  readonly clientSecret: string | undefined;
  /** The variable of the client secret, for the messages. */
  readonly secretVariable: string;
}

/** A file option: the last value, not empty, and a regular file when it exists (regularFile.ts). */
export function fileOption(values: Values, name: OptionName): string | undefined {
  const path = last(values, name, nonEmpty, 'it must not be empty');
  if (path === undefined) return undefined;
  // A pipe or a device would hang the grant when the bridge reads the file (regularFile.ts).
  const why = notRegularFile(path);
  if (why !== undefined) throw new UsageError(`the value of --${name} is not valid: ${why}`);
  return path;
}

export function parseMachineGrant(values: Values, input: MachineGrantInput): MachineGrantOptions {
  const clientKeyFile = fileOption(values, 'client-key-file');
  const assertionFile = fileOption(values, 'assertion-file');
  const { grant, secretVariable } = input;
  const machine = grant === 'client-credentials' || grant === 'jwt-bearer' || grant === 'id-jag';
  if (clientKeyFile !== undefined && !machine) {
    throw conflict(
      'client-key-file',
      'it needs --grant client-credentials, --grant jwt-bearer or --grant id-jag',
    );
  }
  if (assertionFile !== undefined && grant !== 'jwt-bearer') {
    throw conflict('assertion-file', 'it needs --grant jwt-bearer');
  }
  if (!machine) return {};
  if (input.clientId === undefined) throw conflict('grant', `--grant ${grant} needs --client-id`);
  if (input.clientIssuer === undefined) {
    throw conflict(
      'grant',
      `--grant ${grant} needs --client-issuer, the only authorization server its credentials are sent to`,
    );
  }
  if (clientKeyFile !== undefined && input.clientSecret !== undefined) {
    throw conflict(
      'client-key-file',
      `the environment variable ${secretVariable} gives a client secret already; give only one of them`,
    );
  }
  if (grant === 'client-credentials' && clientKeyFile === undefined && input.clientSecret === undefined) {
    throw new UsageError(
      `--grant client-credentials needs a client credential: set the environment variable ${secretVariable}, or give --client-key-file`,
    );
  }
  if (grant === 'jwt-bearer' && assertionFile === undefined) {
    throw new UsageError('--grant jwt-bearer needs --assertion-file');
  }
  return {
    ...(clientKeyFile === undefined ? {} : { clientKeyFile }),
    ...(assertionFile === undefined ? {} : { assertionFile }),
  };
}
