/**
 * The form question, its answer and the final result that the marble tests of input rounds share
 * (driveInputRounds, forwardRequest): an upstream input request of 2026-07-28 and what the client
 * of 2025-11-25 gets for it.
 */
import type { JsonObject } from '../src/protocol/jsonrpc.js';
import { req } from '../src/testing/frames.js';

export const SCHEMA: JsonObject = {
  type: 'object',
  properties: { name: { type: 'string' } },
  required: ['name'],
};
export const FORM = {
  method: 'elicitation/create',
  params: { mode: 'form', message: 'Name?', requestedSchema: SCHEMA },
};
/** The bridge request `id` that asks the client FORM's question. */
export const ASK_FORM = (id: string) => req(id, 'elicitation/create', FORM.params);
/** The client's answer to FORM. */
export const NAME = { action: 'accept', content: { name: 'Ada' } };
/** The upstream's last result. */
export const FINAL = { content: [{ type: 'text', text: 'done' }] };
