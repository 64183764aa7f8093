/**
 * The grant table of the sign-in (docs/sign-in.md#sign-in-grants): for each grant the bridge can
 * run, the function that obtains and stores a token once the lock is held and discovery is done
 * (renewUnderLock.ts), and whether it needs a person (a browser or a URL elicitation). Adding a
 * grant is one row; a grant without a row is refused by the command line before it gets here
 * (src/cli/grantOption.ts).
 */
import { BridgeError } from '../protocol/bridgeError.js';
import type { GrantName } from './grantName.js';
import { obtainMachineToken } from './grant/machineGrant.js';
import type { ChallengeInput, Discovered, RenewalContext } from './renewal.js';
import { signInAnew } from './renewal.js';
import type { TokenRecord } from './store/types.js';

export interface GrantRow {
  /**
   * True when a person signs in: the early refusals of a browser sign-in apply (a sandbox, a
   * client that cannot show a URL: docs/sign-in.md#sign-in-sandbox, docs/sign-in.md#sign-in-consent).
   */
  readonly interactive: boolean;
  /** Obtains a token and stores it with `ctx.save` (the record of `stored` is the one it replaces). */
  readonly obtain: (
    ctx: RenewalContext,
    input: ChallengeInput,
    found: Discovered,
    stored: TokenRecord | undefined,
  ) => Promise<void>;
}

const GRANTS: Readonly<Partial<Record<GrantName, GrantRow>>> = {
  'authorization-code': { interactive: true, obtain: signInAnew },
  'client-credentials': {
    interactive: false,
    obtain: (...args) => obtainMachineToken('client-credentials', ...args),
  },
  'jwt-bearer': { interactive: false, obtain: (...args) => obtainMachineToken('jwt-bearer', ...args) },
};

/** The row of `grant` (absent: the browser sign-in). */
export function grantRow(grant: GrantName | undefined): GrantRow {
  const row = GRANTS[grant ?? 'authorization-code'];
  if (row === undefined) throw new BridgeError('internal', { detail: `the grant ${grant ?? ''} has no row` });
  return row;
}
