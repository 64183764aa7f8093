/**
 * Dynamic client registration (RFC 7591) at the `registration_endpoint` of the validated
 * authorization server metadata. The request goes through {@link guardedFetch} like every request
 * of the sign-in (https, or loopback http for a loopback MCP URL; no redirects; bounded body).
 *
 * The answer is read as common servers send it, with no check weaker (SECURITY.md "Tolerances of
 * the sign-in"):
 * - `201 Created` (RFC 7591 §3.2.1) or `200 OK`: both carry the same client information;
 * - a `client_secret` without `client_secret_expires_at` is a secret that does not expire (the
 *   value `0` of RFC 7591 §3.2.1); the field is only a hint for when to register again, and the bridge
 *   registers again whenever the server refuses the client;
 * - `client_id` must be a non-empty string, `client_secret` a string when present: anything else
 *   is `registration_failed`.
 */
import type { ServerMetadata } from 'openid-client';
import { BridgeError } from '../protocol/bridgeError.js';
import { safeCode } from './flow.js';
import { guardedFetch, readBody, REQUEST_TIMEOUT_MS, signInHttpReason } from './http.js';
import type { Fetch } from './http.js';
import type { ClientRegistration } from './store/types.js';

/** What the bridge registers (README.md "Sign-in": the native client of RFC 8252). */
export interface DynamicRegistration {
  /** Absent for a grant without a redirect (the device grant: no redirect URI, no response type). */
  readonly redirectUri?: string;
  readonly clientName: string;
  /** Default `authorization_code` and `refresh_token` (the browser sign-in). */
  readonly grantTypes?: readonly string[];
}

const failed = (detail: string): BridgeError => new BridgeError('registration_failed', { detail });

function parse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The client the answer describes (see the header for what is accepted). */
export function registeredClient(body: Record<string, unknown>): {
  registration: ClientRegistration;
  secret?: string;
} {
  const id = body['client_id'];
  if (typeof id !== 'string' || id === '') throw failed('the answer has no client_id');
  const rawSecret = body['client_secret'];
  if (rawSecret !== undefined && typeof rawSecret !== 'string')
    throw failed('the client_secret is not a string');
  const secret = rawSecret === '' ? undefined : rawSecret;
  const method = body['token_endpoint_auth_method'];
  const authMethod =
    method === 'client_secret_basic' || method === 'client_secret_post'
      ? method
      : secret !== undefined && method === undefined
        ? 'client_secret_basic'
        : 'none';
  if (authMethod !== 'none' && secret === undefined)
    throw failed(`the answer has no client_secret for ${authMethod}`);
  const registration: ClientRegistration = {
    clientId: id,
    source: 'dynamic',
    authMethod,
    ...(secret === undefined || authMethod === 'none' ? {} : { clientSecret: secret }),
  };
  return registration.clientSecret === undefined
    ? { registration }
    : { registration, secret: registration.clientSecret };
}

export async function registerClient(
  as: ServerMetadata,
  input: DynamicRegistration,
  fetch: Fetch,
  mcpUrl: string,
): Promise<{ registration: ClientRegistration; secret?: string }> {
  const endpoint = as.registration_endpoint;
  if (typeof endpoint !== 'string') throw new BridgeError('registration_unavailable');
  let status: number;
  let text: string;
  try {
    const response = await guardedFetch(fetch, mcpUrl)(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        application_type: 'native',
        client_name: input.clientName,
        ...(input.redirectUri === undefined ? {} : { redirect_uris: [input.redirectUri] }),
        grant_types: input.grantTypes ?? ['authorization_code', 'refresh_token'],
        response_types: input.redirectUri === undefined ? [] : ['code'],
        token_endpoint_auth_method: 'none',
      }),
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    status = response.status;
    text = await readBody(response);
  } catch (error) {
    throw failed(signInHttpReason(error) ?? 'the request failed');
  }
  const body = parse(text);
  if (status !== 201 && status !== 200) {
    // RFC 7591 §3.2.2: an error answer names its code in `error`.
    const code = body?.['error'];
    throw failed(code === undefined ? `HTTP status ${status}` : `HTTP status ${status}, ${safeCode(code)}`);
  }
  if (body === undefined) throw failed('the answer is not a JSON object');
  return registeredClient(body);
}
