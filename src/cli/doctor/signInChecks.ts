/**
 * `doctor <url>`, the sign-in chain of a server that answered 401 (docs/doctor.md#doctor-checks):
 * the protected resource metadata, the authorization server metadata and the client the bridge
 * would sign in as. Each step is the sign-in's own function (src/oauth/resourceMetadata.ts,
 * serverMetadata.ts, registration.ts), so doctor finds what the sign-in would find; their
 * details name no URL of the server, no token and no secret.
 */
import { isBridgeError } from '../../protocol/bridgeError.js';
import type { Logger } from '../../ports/logger.js';
import type { Fetch } from '../../oauth/http.js';
import { discoverResource } from '../../oauth/resourceMetadata.js';
import { discoverServer } from '../../oauth/serverMetadata.js';
import { chooseRegistration, type RegistrationConfig } from '../../oauth/registration.js';
import { loopbackRedirectUri } from '../../oauth/store/identity.js';
import { serverOf } from '../status.js';
import { result, serverText, type CheckResult } from './checks.js';

export interface SignInCheckInput {
  readonly fetch: Fetch;
  readonly url: string;
  /** The `resource_metadata` of the 401's challenge. */
  readonly resourceMetadata?: string;
  /** The registration settings of the sign-in (signInSettings.ts). */
  readonly registration: RegistrationConfig;
  readonly timeoutMs: number;
}

/** Why a step failed: the BridgeError's detail (never a URL of the server), or its code. */
const why = (error: unknown): string =>
  isBridgeError(error) ? (error.detail ?? error.code) : 'the request failed';

const skipped = (check: string): CheckResult => result(check, 'skip', 'an earlier sign-in check failed');

/** A logger that keeps nothing: chooseRegistration's info line is for a real sign-in. */
const SILENT: Logger = { log: () => undefined, enabled: () => false };

export async function signInChecks(input: SignInCheckInput): Promise<CheckResult[]> {
  const signal = AbortSignal.timeout(input.timeoutMs);
  let resource: Awaited<ReturnType<typeof discoverResource>>;
  try {
    resource = await discoverResource({
      fetch: input.fetch,
      mcpUrl: input.url,
      ...(input.resourceMetadata === undefined ? {} : { headerUrl: input.resourceMetadata }),
      signal,
    });
  } catch (error) {
    return [
      result(
        'resource-metadata',
        'fail',
        why(error),
        'the server must publish its protected resource metadata (RFC 9728) for its own URL; tell its operator',
      ),
      skipped('authorization-server'),
      skipped('registration'),
    ];
  }
  const issuer = serverText(serverOf(resource.issuer));
  const checks = [result('resource-metadata', 'ok', `names the authorization server ${issuer}`)];
  let found: Awaited<ReturnType<typeof discoverServer>>;
  try {
    found = await discoverServer({ fetch: input.fetch, issuer: resource.issuer, mcpUrl: input.url, signal });
  } catch (error) {
    return [
      ...checks,
      result(
        'authorization-server',
        'fail',
        `${issuer}: ${why(error)}`,
        'the authorization server the resource metadata names must answer with its metadata (RFC 8414); tell the operator of the server',
      ),
      skipped('registration'),
    ];
  }
  checks.push(
    result('authorization-server', 'ok', `${issuer}: the issuer matches, PKCE S256, usable endpoints`),
  );
  const redirectUri = loopbackRedirectUri(input.registration.redirectPort);
  try {
    const choice = chooseRegistration({
      config: input.registration,
      as: found.metadata,
      stored: undefined,
      logger: SILENT,
      redirectUri,
    });
    const how =
      choice.kind === 'dynamic'
        ? 'dynamic client registration'
        : choice.registration.source === 'metadata-document'
          ? 'a client ID metadata document'
          : 'the client ID of --client-id';
    checks.push(result('registration', 'ok', `the bridge would sign in with ${how}`));
  } catch (error) {
    checks.push(
      result(
        'registration',
        'fail',
        isBridgeError(error) ? error.code : 'no client registration',
        `register a client with the redirect URI ${redirectUri} at the authorization server, then give --client-id and --client-issuer`,
      ),
    );
  }
  return checks;
}
