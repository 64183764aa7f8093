/**
 * The initialize of a front session (docs/serve.md#serve-sessions): its request id while it runs,
 * and the revision of its result. A failed initialize ends the session (a client retries with a
 * new one), so its answer is told apart from the answers of other requests.
 */
import type { Frame, RequestId } from '../../protocol/jsonrpc.js';
import type { Inbound } from '../../protocol/parseLine.js';

export interface InitializeWatch {
  /** The revision of the initialize result; undefined before it. */
  readonly revision: string | undefined;
  /** Notes the id of an initialize request among the messages into the session. */
  sent(message: Inbound): void;
  /** For the answer to the running initialize: whether it failed; else undefined. */
  answered(frame: Frame & { id: RequestId | null }): 'ok' | 'failed' | undefined;
}

export function createInitializeWatch(): InitializeWatch {
  let id: RequestId | undefined;
  let revision: string | undefined;
  return {
    get revision() {
      return revision;
    },
    sent(message) {
      const { frame } = message.kind === 'frame' ? message : { frame: undefined };
      if (frame !== undefined && 'method' in frame && frame.method === 'initialize' && 'id' in frame) {
        id = frame.id;
      }
    },
    answered(frame) {
      if (id === undefined || frame.id !== id) return undefined;
      id = undefined;
      const version = 'result' in frame ? frame.result['protocolVersion'] : undefined;
      if (typeof version === 'string') revision = version;
      return 'error' in frame ? 'failed' : 'ok';
    },
  };
}
