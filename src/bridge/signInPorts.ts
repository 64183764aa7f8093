/**
 * The two seams between the sign-in (src/oauth) and the rest of the bridge:
 * the HTTP upstream asks an {@link UpstreamAuth} for its Authorization header and hands it each
 * 401/403; the sign-in asks the client through a {@link ConsentPort} once `notifications/initialized`
 * arrived (docs/sign-in.md#sign-in-consent). Types only: nothing of src/oauth is loaded by the bridge.
 */
export type { ConsentPort, UpstreamAuth } from '../oauth/ports.js';
