/**
 * The time limit of each upstream round of a forwarded request and its failure
 * (docs/requests.md#requests-deadlines; rules 3, 4 and 9 in ../forwardRequest.ts).
 */
import { BridgeError } from '../../src/protocol/bridgeError.js';
import { formatDuration } from '../../src/protocol/errors.js';
import type { ForwardRequestConfig } from '../forwardRequest.js';

/** The time limit of one upstream round (docs/requests.md#requests-deadlines). */
export function roundLimitMs(method: string, round: number, config: ForwardRequestConfig): number {
  if (method === 'tools/call') return config.callTimeoutMs;
  if (method === 'prompts/get' || method === 'resources/read') {
    return round === 1 ? config.readTimeoutMs : config.inputTimeoutMs;
  }
  return config.listTimeoutMs;
}

/** The failure of a round that got no response in `limitMs`. */
export function timeoutError(method: string, limitMs: number): BridgeError {
  return new BridgeError('timeout', { detail: `${method}: no response in ${formatDuration(limitMs)}` });
}
