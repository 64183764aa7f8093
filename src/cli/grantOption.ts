/**
 * `--grant` (docs/sign-in.md#sign-in-grants): which OAuth grant the sign-in of a URL upstream uses.
 * One table row per grant, so adding a grant is one line; a grant this version cannot run yet is
 * refused at the start with a usage error, never silently replaced by the browser sign-in.
 */
import { last, type Values } from './optionValues.js';
import { UsageError } from './usageError.js';

import type { GrantName } from '../oauth/grantName.js';

export type { GrantName };

/** `supported: false`: parsed and documented, but refused until the grant is implemented. */
const GRANTS: Readonly<Record<GrantName, { readonly supported: boolean }>> = {
  'authorization-code': { supported: true },
  'client-credentials': { supported: true },
  'jwt-bearer': { supported: true },
  'id-jag': { supported: false },
  'device-code': { supported: true },
};

export const DEFAULT_GRANT: GrantName = 'authorization-code';

const isGrant = (text: string): text is GrantName => Object.hasOwn(GRANTS, text);

/** The grant of `--grant` (the last one given), or undefined for the default (today's browser sign-in). */
export function parseGrant(values: Values): GrantName | undefined {
  const grant = last(
    values,
    'grant',
    (text) => (isGrant(text) ? text : undefined),
    `give ${Object.keys(GRANTS).join(', ')}`,
  );
  if (grant === undefined || grant === DEFAULT_GRANT) return undefined;
  if (!GRANTS[grant].supported) {
    throw new UsageError(`the value of --grant is not valid: ${grant} is not yet supported`);
  }
  return grant;
}
