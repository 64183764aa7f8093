/**
 * `--grant` (docs/sign-in.md#sign-in-grants): which OAuth grant the sign-in of a URL upstream uses.
 * An unknown name is refused at the start with the list of names, never replaced by the browser
 * sign-in.
 */
import { last, type Values } from './optionValues.js';

import type { GrantName } from '../oauth/grantName.js';

export type { GrantName };

/** Every grant, in the order the diagnostic lists them. */
const GRANTS: Readonly<Record<GrantName, true>> = {
  'authorization-code': true,
  'client-credentials': true,
  'jwt-bearer': true,
  'id-jag': true,
  'device-code': true,
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
  return grant === undefined || grant === DEFAULT_GRANT ? undefined : grant;
}
