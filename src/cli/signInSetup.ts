/**
 * The sign-in of the URL form, made once per process (docs/sign-in.md#sign-in-trigger): the token store
 * (docs/sign-in.md#sign-in-stores: a forced store that does not open is exit code 2), the fetch of
 * the sign-in through the upstream's trust and proxy settings (docs/http-upstream.md#http-client), the consent relay that each
 * client connection binds (docs/sign-in.md#sign-in-consent), and the UpstreamAuth that the HTTP upstream calls. Loaded only
 * for a URL with the sign-in on: the command form never pays for openid-client or the stores.
 */
import { createConsentRelay } from '../bridge/consent.js';
import type { Logger } from '../ports/logger.js';
import { createSignInFetch } from '../edges/http/signInFetch.js';
import { createUpstreamAuth } from '../oauth/upstreamAuth.js';
import { openTokenStore } from '../oauth/store/openStore.js';
import { storeLogger } from '../oauth/store/record.js';
import type { SharedSignIn } from '../node/sharedPlan.js';
import { signInSettings, type SignInSetupInput } from './signInSettings.js';

export { signInSettings };
export type { SignInSetupInput };

/**
 * The sign-in of a URL upstream, or the diagnostic of exit code 2 (`the token store did not open:
 * <cause>`); `close` releases what it holds (dispatchers). The shared bridge keeps the same per key.
 */
export type SignInSetup = SharedSignIn;

/** `writeSignInLine`: where the sign-in line goes instead of this process's stderr (the shared bridge's sessions). */
export async function setUpSignIn(
  input: SignInSetupInput,
  logger: Logger,
  writeSignInLine?: (line: string) => void,
): Promise<SignInSetup> {
  const { env } = input;
  const settings = signInSettings(input);
  const opened = await openTokenStore(settings.store, storeLogger(logger, input.profile.logScope));
  if (!opened.ok) return { ok: false, message: opened.message };
  const signInFetch = createSignInFetch(
    input.caPem === undefined ? { env, mcpUrl: input.url } : { env, caPem: input.caPem, mcpUrl: input.url },
  );
  const consent = createConsentRelay({
    browserWithoutUrlElicitation: input.profile.identity.browserWithoutUrlElicitation,
  });
  const auth = createUpstreamAuth(settings.auth, {
    fetch: signInFetch.fetch,
    store: opened.store,
    lock: opened.lock,
    logger,
    env,
    consent: consent.port,
    ...(writeSignInLine === undefined ? {} : { writeSignInLine }),
  });
  // A stored sign-in is read before the first request, so that it needs no 401 round trip.
  await auth.load();
  return { ok: true, auth, consent, close: () => signInFetch.close() };
}
