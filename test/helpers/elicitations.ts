/**
 * The URL question the bridge sends a client (`elicitation/create` in URL mode,
 * docs/input-rounds.md#input-url-rule), written out in literal values for the tests that expect it.
 */
import type { RequestFrame, RequestId } from '../../src/protocol/jsonrpc.js';

export interface UrlQuestion {
  readonly message: string;
  readonly url: string;
  readonly elicitationId: string;
}

export const urlQuestion = (id: RequestId, { message, url, elicitationId }: UrlQuestion): RequestFrame => ({
  jsonrpc: '2.0',
  id,
  method: 'elicitation/create',
  params: { mode: 'url', message, url, elicitationId },
});
