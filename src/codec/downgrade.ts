/**
 * The frames of a session of an older client revision (docs/revisions.md): one pure step per
 * kind of frame, "downgrade for revision R", applied after the usual 2025-11-25 shaping. Each
 * step removes what the revision does not define, turns content blocks it lacks into text, and
 * returns its input itself when nothing changes: for 2025-11-25 every step is a comparison of
 * the revision and nothing more.
 */
import type { Frame } from '../protocol/jsonrpc.js';
import { omit } from './objects.js';
import { samplingParamsFor } from './downgradeRounds.js';
import { NEWEST_CLIENT_REVISION, hasSince } from './revisions.js';
import type { ClientRevision } from './revisions.js';

// The result steps are in downgradeResults.ts; the bridge takes every downgrade step from here.
export { downgradeBlock, downgradeInitializeResult, downgradeResult } from './downgradeResults.js';

/**
 * A notification or a request of the bridge for a client of `revision`. Progress loses
 * `message` before 2025-03-26; a form's `elicitation/create` loses `mode` before 2025-11-25 (its
 * schema was reduced when the round was planned, formSchemaFor); `sampling/createMessage` loses
 * what planRound's check (samplingParamsFor) reduces. A URL `elicitation/create` and
 * `notifications/elicitation/complete` pass as they are: only a client that declared URL
 * elicitation is ever sent one (planRound, the sign-in's consent port), and it gets what it
 * declared (docs/revisions.md#revisions-declared). Responses pass: results are shaped with their
 * method (downgradeResult).
 */
export function downgradeFrame(frame: Frame, revision: ClientRevision): Frame | undefined {
  if (revision === NEWEST_CLIENT_REVISION || !('method' in frame)) return frame;
  const params = frame.params;
  switch (frame.method) {
    case 'notifications/progress':
      return hasSince(revision, '2025-03-26') || params === undefined || !Object.hasOwn(params, 'message')
        ? frame
        : { ...frame, params: omit(params, ['message']) };
    case 'elicitation/create':
      return params === undefined || !Object.hasOwn(params, 'mode') || params['mode'] === 'url'
        ? frame
        : { ...frame, params: omit(params, ['mode']) };
    case 'sampling/createMessage': {
      const shaped = params === undefined ? undefined : samplingParamsFor(params, revision);
      return shaped === undefined || shaped === params ? frame : { ...frame, params: shaped };
    }
    default:
      return frame;
  }
}
