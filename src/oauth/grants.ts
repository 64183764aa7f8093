/**
 * The grant table of the sign-in (docs/sign-in.md#sign-in-grants): for each grant the bridge can
 * run, what fails at once before any request (docs/sign-in.md#sign-in-sandbox,
 * docs/sign-in.md#sign-in-consent; for `id-jag`, docs/sign-in.md#sign-in-id-jag-early) and the
 * function that obtains and stores a token once the lock is held and discovery is done
 * (renewUnderLock.ts). Adding a grant is one row; a grant without a row is refused by the command
 * line before it gets here (src/cli/grantOption.ts).
 */
import { BridgeError } from '../protocol/bridgeError.js';
import { refuseDeviceEarly, signInWithDeviceCode } from './device/signIn.js';
import type { GrantName } from './grantName.js';
import { obtainMachineToken } from './grant/machineGrant.js';
import { refuseIdJagEarly } from './idp/earlyRefusal.js';
import { refuseEarly } from './interactive.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from './interactiveSettings.js';
import type { ChallengeInput, Discovered, RenewalContext } from './renewal.js';
import { signInAnew } from './renewal.js';
import type { TokenRecord } from './store/types.js';

export interface GrantRow {
  /** What fails at once, before any request (a grant without a person: nothing). */
  readonly refuseEarly: (ctx: RenewalContext) => Promise<BridgeError | undefined>;
  /** Obtains a token and stores it with `ctx.save` (the record of `stored` is the one it replaces). */
  readonly obtain: (
    ctx: RenewalContext,
    input: ChallengeInput,
    found: Discovered,
    stored: TokenRecord | undefined,
  ) => Promise<void>;
}

const nothingEarly = (): Promise<undefined> => Promise.resolve(undefined);

/** The early refusals of a sign-in with a person, on the settings and state of the renewal. */
const early =
  (rule: (s: InteractiveSettings, d: InteractiveDeps, st: InteractiveState) => BridgeError | undefined) =>
  (ctx: RenewalContext): Promise<BridgeError | undefined> =>
    Promise.resolve(rule(ctx.settings, ctx.interactiveDeps, ctx.state));

const GRANTS: Readonly<Partial<Record<GrantName, GrantRow>>> = {
  'authorization-code': { refuseEarly: early(refuseEarly), obtain: signInAnew },
  'client-credentials': {
    refuseEarly: nothingEarly,
    obtain: (...args) => obtainMachineToken('client-credentials', ...args),
  },
  'jwt-bearer': { refuseEarly: nothingEarly, obtain: (...args) => obtainMachineToken('jwt-bearer', ...args) },
  // Without --id-token-file the ID token may need a browser sign-in at the IdP.
  'id-jag': { refuseEarly: refuseIdJagEarly, obtain: (...args) => obtainMachineToken('id-jag', ...args) },
  'device-code': {
    refuseEarly: early(refuseDeviceEarly),
    obtain: (...args) => signInWithDeviceCode(...args),
  },
};

/** The row of `grant` (absent: the browser sign-in). */
export function grantRow(grant: GrantName | undefined): GrantRow {
  const row = GRANTS[grant ?? 'authorization-code'];
  if (row === undefined) throw new BridgeError('internal', { detail: `the grant ${grant ?? ''} has no row` });
  return row;
}
