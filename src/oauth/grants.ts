/**
 * The grants that replace the browser sign-in of renewal.ts (`--grant`, docs/sign-in.md#sign-in-grants):
 * one row per grant, the name as `--grant` spells it. A row gives what fails at once (in place of
 * the browser sign-in's refuseEarly) and the sign-in itself; the default grant, authorization
 * code, has no row.
 */
import type { BridgeError } from '../protocol/bridgeError.js';
import { refuseDeviceEarly, signInWithDeviceCode } from './device/signIn.js';
import type { InteractiveDeps, InteractiveSettings, InteractiveState } from './interactiveSettings.js';
import type { ChallengeInput, Discovered, RenewalContext } from './renewal.js';
import type { SignInConfig } from './signInConfig.js';
import type { TokenRecord } from './store/types.js';

export interface GrantRow {
  readonly refuseEarly: (
    settings: InteractiveSettings,
    deps: InteractiveDeps,
    state: InteractiveState,
  ) => BridgeError | undefined;
  readonly signIn: (
    ctx: RenewalContext,
    input: ChallengeInput,
    found: Discovered,
    stored: TokenRecord | undefined,
  ) => Promise<void>;
}

const GRANT_ROWS: Readonly<Partial<Record<NonNullable<SignInConfig['grant']>, GrantRow>>> = {
  'device-code': { refuseEarly: refuseDeviceEarly, signIn: (...args) => signInWithDeviceCode(...args) },
};

/** The row of the configured grant; undefined for the browser sign-in. */
export const grantRow = (config: SignInConfig): GrantRow | undefined =>
  config.grant === undefined ? undefined : GRANT_ROWS[config.grant];
