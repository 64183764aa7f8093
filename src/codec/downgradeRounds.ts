/**
 * The input rounds of a session of an older client revision (docs/revisions.md,
 * docs/input-rounds.md#input-kinds): the form schema of `elicitation/create` and the params of
 * `sampling/createMessage` as the revision can carry them, or `undefined` when it cannot, so that
 * planRound refuses the round instead of sending what the client cannot read.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { omit } from './objects.js';
import { NEWEST_CLIENT_REVISION, hasSince } from './revisions.js';
import type { ClientRevision } from './revisions.js';
import { MISSING, mapItems, withMember, without } from './revisionMembers.js';

/** The forms of a 2025-11-25 enum that carry their titles in `oneOf` (TitledSingleSelectEnumSchema). */
function titledEnum(property: JsonObject): JsonObject | undefined {
  const options = property['oneOf'];
  if (!Array.isArray(options)) return undefined;
  const values: string[] = [];
  const names: string[] = [];
  for (const option of options) {
    if (!isObject(option) || typeof option['const'] !== 'string') return undefined;
    values.push(option['const']);
    names.push(typeof option['title'] === 'string' ? option['title'] : option['const']);
  }
  const out = omit(property, ['oneOf', 'default']);
  out['enum'] = values;
  out['enumNames'] = names;
  return out;
}

/**
 * A form's `requestedSchema` for a client of `revision`, or `undefined` when the revision cannot
 * carry it. A client older than 2025-06-18 gets a form only when it declared elicitation, and
 * then in the shape of 2025-06-18, the revision that added forms (docs/revisions.md#revisions-declared). 2025-11-25 added
 * defaults on strings, numbers and enums, titled enums in `oneOf` and multi-select enums
 * (arrays): a 2025-06-18 form gets a titled enum as `enum` with `enumNames` and no defaults but
 * the boolean one; a multi-select enum has no 2025-06-18 form.
 */
export function formSchemaFor(schema: JsonObject, revision: ClientRevision): JsonObject | undefined {
  if (revision === NEWEST_CLIENT_REVISION) return schema;
  const properties = schema['properties'];
  if (!isObject(properties)) return schema;
  let changed: JsonObject | undefined;
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    let shaped: JsonObject | undefined = property;
    if (property['type'] === 'array') return undefined;
    if (property['oneOf'] !== undefined) shaped = titledEnum(property);
    else if (property['type'] !== 'boolean') shaped = without(property, ['default']);
    if (shaped === undefined) return undefined;
    if (shaped !== property) (changed ??= { ...properties })[name] = shaped;
  }
  return changed === undefined ? schema : { ...schema, properties: changed };
}

/**
 * The params of `sampling/createMessage` for a client of `revision`, or `undefined` when the
 * revision cannot carry them. Before 2025-11-25 a message has one content block (a list of one
 * is unwrapped) and no `_meta`, and there are no tools (planRound refuses sampling with tools
 * for a client that did not declare them); before 2025-03-26 there is no audio. Sampling with
 * tools reaches only a client that declared `sampling.tools` (planRound), in the shape of
 * 2025-11-25 that the client declared (docs/revisions.md#revisions-declared).
 */
export function samplingParamsFor(params: JsonObject, revision: ClientRevision): JsonObject | undefined {
  if (revision === NEWEST_CLIENT_REVISION || usesTools(params)) return params;
  const messages = params['messages'];
  if (!Array.isArray(messages)) return params;
  let refused = false;
  const shaped = mapItems(messages, (message) => {
    let out = without(message, ['_meta']);
    let content = out['content'];
    if (Array.isArray(content)) {
      if (content.length !== 1 || !isObject(content[0])) {
        refused = true;
        return out;
      }
      content = content[0];
      out = { ...out, content };
    }
    if (isObject(content) && content['type'] === 'audio' && !hasSince(revision, '2025-03-26')) refused = true;
    if (isObject(content)) out = withMember(out, 'content', without(content, MISSING[revision].block));
    return out;
  });
  if (refused) return undefined;
  return withMember(without(params, ['tools', 'toolChoice']), 'messages', shaped);
}

/** Sampling uses tools with `tools`, `toolChoice`, or tool use and tool result content. */
export function usesTools(params: JsonObject): boolean {
  if (params['tools'] !== undefined || params['toolChoice'] !== undefined) return true;
  const messages = Array.isArray(params['messages']) ? params['messages'] : [];
  return messages.some((message) => {
    const content = isObject(message) ? message['content'] : undefined;
    const blocks = Array.isArray(content) ? content : [content];
    return blocks.some(
      (block) => isObject(block) && (block['type'] === 'tool_use' || block['type'] === 'tool_result'),
    );
  });
}
