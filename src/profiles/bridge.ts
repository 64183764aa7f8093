/**
 * The bridge of one product: `createBridge` with the product's profile applied. The quirks act
 * through the result-shaping step of the bridge (BridgeDeps.shapeResult), so that the bridge
 * itself stays product-neutral (docs/architecture.md#architecture-packages–1.2).
 */
import type { OperatorFunction } from 'rxjs';
import { createBridge, createRoutedBridge } from '../bridge/createBridge.js';
import type { BridgeConfig, BridgeDeps } from '../bridge/config.js';
import { shapeResult } from '../codec/results.js';
import type { ShapeOptions } from '../codec/results.js';
import type { Inbound } from '../protocol/parseLine.js';
import type { Frame } from '../protocol/jsonrpc.js';
import type { RoutedFrame } from '../ports/routedFrame.js';
import type { Profile } from './profile.js';

/** The result-shaping step of a profile: the codec's rules with the profile's quirks. */
export function profileShapeResult(profile: Profile): typeof shapeResult {
  // The bridge passes the same options object for every result of a connection: the options
  // with the quirks are made once per such object, not per result.
  let lastOpts: ShapeOptions | undefined;
  let lastWithQuirks: ShapeOptions = { remote: false };
  return (method, result, opts) => {
    if (opts !== lastOpts) {
      lastWithQuirks = { ...opts, quirks: profile.quirks };
      lastOpts = opts;
    }
    return shapeResult(method, result, lastWithQuirks);
  };
}

/** A BridgeConfig whose `fallbackName` defaults to the profile's name. */
export type ProfileBridgeConfig = Omit<BridgeConfig, 'fallbackName'> & { readonly fallbackName?: string };

/**
 * Builds the bridge of a product: its quirks shape the results, its `_meta` pass-through decides
 * what of the client travels upstream (BridgeConfig.metaPassthrough), its name is the last
 * fallback of `serverInfo.name`. A `deps.shapeResult` or `metaPassthrough` of the caller wins
 * over the profile's.
 *
 * @example
 * import { createProfileBridge, DEFAULT_LIMITS, genericProfile } from 'mcp-bridge-sdk';
 * const bridge = createProfileBridge(genericProfile, { version: '1.0.0', limits: DEFAULT_LIMITS }, deps);
 * inbound$.pipe(bridge).subscribe(send);
 */
export function createProfileBridge(
  profile: Profile,
  config: ProfileBridgeConfig,
  deps: BridgeDeps,
): OperatorFunction<Inbound, Frame> {
  return createBridge(withProfileConfig(profile, config), withProfileDeps(profile, deps));
}

/** createProfileBridge whose frames carry their origin (createRoutedBridge, docs/serve.md#serve-routing). */
export function createRoutedProfileBridge(
  profile: Profile,
  config: ProfileBridgeConfig,
  deps: BridgeDeps,
): OperatorFunction<Inbound, RoutedFrame> {
  return createRoutedBridge(withProfileConfig(profile, config), withProfileDeps(profile, deps));
}

function withProfileConfig(profile: Profile, config: ProfileBridgeConfig): BridgeConfig {
  return {
    ...config,
    fallbackName: config.fallbackName ?? profile.name,
    metaPassthrough: config.metaPassthrough ?? profile.metaPassthrough,
  };
}

function withProfileDeps(profile: Profile, deps: BridgeDeps): BridgeDeps {
  return { ...deps, shapeResult: deps.shapeResult ?? profileShapeResult(profile) };
}
