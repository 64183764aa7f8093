/**
 * The error messages of an executable: the wire error table (src/protocol/errors.ts) names no
 * product and no option, so the executable of a profile says which of its options helps, and
 * under which name to run its `logout`. Codes, causes and details stay those of the table; only
 * the message of an error the bridge made itself is replaced.
 */
import { isObject, type Frame } from '../protocol/jsonrpc.js';
import { ERROR_TABLE, type Cause } from '../protocol/errors.js';
import type { Profile } from '../profiles/profile.js';
import { vscodeProfile } from '../profiles/vscode.js';

/** Cause → the message of the executable of `profile`, for the causes an option can help with. */
export function executableMessages(profile: Profile): Readonly<Partial<Record<Cause, string>>> {
  const sandbox =
    profile.name === vscodeProfile.name
      ? 'The upstream server needs a sign-in, but the bridge runs in the sandbox of VS Code. Sign in once ' +
        'outside the sandbox, or turn the sandbox off for this server.'
      : 'The upstream server needs a sign-in, but the bridge runs in a sandbox (SANDBOX_RUNTIME=1) that ' +
        'allows no sign-in. Sign in once outside the sandbox, or turn the sandbox off for this server.';
  return {
    sign_in_timeout:
      'The sign-in did not complete in the time limit of the detail. Sign in again, or give more time with ' +
      '--sign-in-timeout (during initialize also with --discover-timeout). If the authorization server no ' +
      `longer knows the bridge, run "${profile.name} logout <url>" and sign in again.`,
    redirect_port_unavailable:
      'The bridge cannot listen on the redirect port of the detail. Close the program that uses it, or give ' +
      'the bridge another port with --redirect-port.',
    registration_unavailable:
      'The authorization server offers no client registration. Register a client with the redirect URI of ' +
      'the detail at the authorization server, then give its ID with --client-id and the issuer with --client-issuer.',
    issuer_not_registered:
      'The upstream server uses another authorization server than the one of --client-issuer. Give the ' +
      'client of that server with --client-id and --client-issuer.',
    invalid_client_metadata_url:
      'The client metadata document URL is not valid. Give an https URL with a path, and without user, ' +
      'password or fragment, in --client-metadata-url.',
    sandbox,
  };
}

/**
 * The frame with the executable's message when it is an error the bridge made of one of the
 * `messages` causes (its message is the table's); any other frame as it is, unchanged.
 */
export function withExecutableMessage(
  frame: Frame,
  messages: Readonly<Partial<Record<Cause, string>>>,
): Frame {
  if (!('error' in frame)) return frame;
  const data = frame.error.data;
  const cause = isObject(data) ? data['cause'] : undefined;
  if (typeof cause !== 'string' || !Object.hasOwn(messages, cause)) return frame;
  const message = messages[cause as Cause];
  if (message === undefined || frame.error.message !== ERROR_TABLE[cause as Cause][1]) return frame;
  return { ...frame, error: { ...frame.error, message } };
}
