/**
 * The frames of a session of an older client revision (docs/revisions.md): one pure step per
 * kind of frame, "downgrade for revision R", applied after the usual 2025-11-25 shaping. Each
 * step removes what the revision does not define, turns content blocks it lacks into text, and
 * returns its input itself when nothing changes: for 2025-11-25 every step is a comparison of
 * the revision and nothing more.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { Frame, JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { omit } from './objects.js';
import { NEWEST_CLIENT_REVISION, hasSince } from './revisions.js';
import type { ClientRevision } from './revisions.js';

/** The kinds of objects whose members changed between the client revisions. */
type Kind = 'tool' | 'resource' | 'prompt' | 'argument' | 'implementation' | 'block' | 'contents';

/** The members each revision added to each kind (from the schema of each revision). */
const ADDED: Readonly<Record<Kind, readonly (readonly [ClientRevision, readonly string[]])[]>> = {
  tool: [
    ['2025-11-25', ['icons', 'execution']],
    ['2025-06-18', ['title', 'outputSchema', '_meta']],
    ['2025-03-26', ['annotations']],
  ],
  resource: [
    ['2025-11-25', ['icons']],
    ['2025-06-18', ['title', '_meta']],
  ],
  prompt: [
    ['2025-11-25', ['icons']],
    ['2025-06-18', ['title', '_meta']],
  ],
  argument: [['2025-06-18', ['title']]],
  implementation: [
    ['2025-11-25', ['icons', 'description', 'websiteUrl']],
    ['2025-06-18', ['title']],
  ],
  block: [
    ['2025-11-25', ['icons']],
    ['2025-06-18', ['_meta']],
  ],
  contents: [['2025-06-18', ['_meta']]],
};

/** The members `revision` lacks, per kind. */
function missing(revision: ClientRevision): Readonly<Record<Kind, readonly string[]>> {
  const out = {} as Record<Kind, string[]>;
  for (const kind of Object.keys(ADDED) as Kind[]) {
    out[kind] = ADDED[kind].flatMap(([since, keys]) => (hasSince(revision, since) ? [] : keys));
  }
  return out;
}

const MISSING: Readonly<Record<ClientRevision, Readonly<Record<Kind, readonly string[]>>>> = {
  '2025-11-25': missing('2025-11-25'),
  '2025-06-18': missing('2025-06-18'),
  '2025-03-26': missing('2025-03-26'),
  '2024-11-05': missing('2024-11-05'),
};

/** `node` without `keys`; `node` itself when it has none of them. */
function without(node: JsonObject, keys: readonly string[]): JsonObject {
  for (const key of keys) if (Object.hasOwn(node, key)) return omit(node, keys);
  return node;
}

/** `items` mapped by `step`; `items` itself when no item changed. */
function mapItems(items: readonly JsonValue[], step: (item: JsonObject) => JsonObject): JsonValue[] {
  let out: JsonValue[] | undefined;
  for (let index = 0; index < items.length; index += 1) {
    const item = items[index] as JsonValue;
    const shaped = isObject(item) ? step(item) : item;
    if (shaped !== item) (out ??= items.slice())[index] = shaped;
  }
  return out ?? (items as JsonValue[]);
}

/** `node` with `member` replaced by `value`, unless it is the same value. */
function withMember(node: JsonObject, member: string, value: JsonValue | undefined): JsonObject {
  if (value === undefined || value === node[member]) return node;
  return { ...node, [member]: value };
}

/** `annotations.lastModified` is of 2025-06-18. */
function annotationsOf(node: JsonObject, revision: ClientRevision): JsonObject {
  const annotations = node['annotations'];
  if (!isObject(annotations) || hasSince(revision, '2025-06-18')) return node;
  return withMember(node, 'annotations', without(annotations, ['lastModified']));
}

const tool = (item: JsonObject, revision: ClientRevision): JsonObject =>
  without(item, MISSING[revision].tool);

const resource = (item: JsonObject, revision: ClientRevision): JsonObject =>
  annotationsOf(without(item, MISSING[revision].resource), revision);

function prompt(item: JsonObject, revision: ClientRevision): JsonObject {
  const out = without(item, MISSING[revision].prompt);
  const args = out['arguments'];
  if (!Array.isArray(args)) return out;
  const drop = MISSING[revision].argument;
  return withMember(
    out,
    'arguments',
    mapItems(args, (arg) => without(arg, drop)),
  );
}

/** The text that stands for a resource link before 2025-06-18. */
function linkText(link: JsonObject): string {
  const name = typeof link['name'] === 'string' ? link['name'] : 'resource';
  const uri = typeof link['uri'] === 'string' ? link['uri'] : '';
  const type = typeof link['mimeType'] === 'string' ? ` (${link['mimeType']})` : '';
  return `Resource link: ${name}${type} ${uri}`.trimEnd();
}

/** The text that stands for audio content before 2025-03-26. */
function audioText(audio: JsonObject): string {
  const type = typeof audio['mimeType'] === 'string' ? ` (${audio['mimeType']})` : '';
  return `Audio content${type}, not shown: the client's MCP revision has no audio content.`;
}

/**
 * One content block (tool results, prompt messages) for `revision`: a resource link becomes a
 * text block before 2025-06-18, audio before 2025-03-26; `_meta` goes before 2025-06-18, icons of
 * a resource link before 2025-11-25, and an embedded resource loses what its contents lack.
 */
export function downgradeBlock(block: JsonObject, revision: ClientRevision): JsonObject {
  if (revision === NEWEST_CLIENT_REVISION) return block;
  const type = block['type'];
  const annotations = isObject(block['annotations']) ? { annotations: block['annotations'] } : {};
  if (type === 'resource_link' && !hasSince(revision, '2025-06-18')) {
    return annotationsOf({ type: 'text', text: linkText(block), ...annotations }, revision);
  }
  if (type === 'audio' && !hasSince(revision, '2025-03-26')) {
    return annotationsOf({ type: 'text', text: audioText(block), ...annotations }, revision);
  }
  let out = annotationsOf(without(block, MISSING[revision].block), revision);
  if (type === 'resource' && isObject(out['resource'])) {
    out = withMember(out, 'resource', without(out['resource'], MISSING[revision].contents));
  }
  return out;
}

/** `content` of a tool result (an array) or of a prompt message (one block). */
function contentOf(node: JsonObject, revision: ClientRevision): JsonObject {
  const content = node['content'];
  if (Array.isArray(content)) {
    return withMember(
      node,
      'content',
      mapItems(content, (block) => downgradeBlock(block, revision)),
    );
  }
  return isObject(content) ? withMember(node, 'content', downgradeBlock(content, revision)) : node;
}

/** The list member of each list result and the step of its items. */
const LISTS: Readonly<
  Record<string, readonly [string, (item: JsonObject, revision: ClientRevision) => JsonObject]>
> = {
  'tools/list': ['tools', tool],
  'resources/list': ['resources', resource],
  'resources/templates/list': ['resourceTemplates', resource],
  'prompts/list': ['prompts', prompt],
};

/**
 * A shaped (2025-11-25) result of a forwarded request for a client of `revision`. Before
 * 2025-06-18 `structuredContent` goes (the 2025-11-25 shaping already put its JSON in a text
 * block when the result had none).
 */
export function downgradeResult(method: string, result: JsonObject, revision: ClientRevision): JsonObject {
  if (revision === NEWEST_CLIENT_REVISION) return result;
  const list = LISTS[method];
  if (list !== undefined) {
    const [member, step] = list;
    const items = result[member];
    return Array.isArray(items)
      ? withMember(
          result,
          member,
          mapItems(items, (item) => step(item, revision)),
        )
      : result;
  }
  switch (method) {
    case 'tools/call': {
      const out = contentOf(result, revision);
      return hasSince(revision, '2025-06-18') ? out : without(out, ['structuredContent']);
    }
    case 'prompts/get': {
      const messages = result['messages'];
      return Array.isArray(messages)
        ? withMember(
            result,
            'messages',
            mapItems(messages, (message) => contentOf(message, revision)),
          )
        : result;
    }
    case 'resources/read': {
      const contents = result['contents'];
      const drop = MISSING[revision].contents;
      return Array.isArray(contents)
        ? withMember(
            result,
            'contents',
            mapItems(contents, (item) => without(item, drop)),
          )
        : result;
    }
    default:
      return result;
  }
}

/**
 * The `initialize` result for `revision`: its `protocolVersion`, the serverInfo members the
 * revision has, no `extensions` (and no `tasks`) before 2025-11-25, no `completions` before
 * 2025-03-26.
 */
export function downgradeInitializeResult(result: JsonObject, revision: ClientRevision): JsonObject {
  if (revision === NEWEST_CLIENT_REVISION) return result;
  const out: JsonObject = { ...result, protocolVersion: revision };
  if (isObject(result['serverInfo'])) {
    out['serverInfo'] = without(result['serverInfo'], MISSING[revision].implementation);
  }
  if (isObject(result['capabilities'])) {
    const drop = hasSince(revision, '2025-03-26')
      ? ['extensions', 'tasks']
      : ['extensions', 'tasks', 'completions'];
    out['capabilities'] = without(result['capabilities'], drop);
  }
  return out;
}

/**
 * A notification or a request of the bridge for a client of `revision`, or `undefined` for a
 * notification the revision does not have (`notifications/elicitation/complete` before
 * 2025-11-25). Progress loses `message` before 2025-03-26; `elicitation/create` loses `mode`
 * before 2025-11-25 (its schema was reduced when the round was planned, formSchemaFor);
 * `sampling/createMessage` loses what planRound's check (samplingParamsFor) reduces. Responses
 * pass: results are shaped with their method (downgradeResult).
 */
export function downgradeFrame(frame: Frame, revision: ClientRevision): Frame | undefined {
  if (revision === NEWEST_CLIENT_REVISION || !('method' in frame)) return frame;
  const params = frame.params;
  switch (frame.method) {
    case 'notifications/elicitation/complete':
      return undefined;
    case 'notifications/progress':
      return hasSince(revision, '2025-03-26') || params === undefined || !Object.hasOwn(params, 'message')
        ? frame
        : { ...frame, params: omit(params, ['message']) };
    case 'elicitation/create':
      return params === undefined || !Object.hasOwn(params, 'mode')
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
 * A form's `requestedSchema` for a client of `revision` (2025-06-18 at the oldest: before it no
 * revision has elicitation), or `undefined` when the revision cannot carry it. 2025-11-25 added
 * defaults on strings, numbers and enums, titled enums in `oneOf` and multi-select enums
 * (arrays): a 2025-06-18 form gets a titled enum as `enum` with `enumNames` and no defaults but
 * the boolean one; a multi-select enum has no 2025-06-18 form.
 */
export function formSchemaFor(schema: JsonObject, revision: ClientRevision): JsonObject | undefined {
  if (revision === NEWEST_CLIENT_REVISION) return schema;
  if (!hasSince(revision, '2025-06-18')) return undefined;
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
 * for a client that did not declare them); before 2025-03-26 there is no audio.
 */
export function samplingParamsFor(params: JsonObject, revision: ClientRevision): JsonObject | undefined {
  if (revision === NEWEST_CLIENT_REVISION) return params;
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
