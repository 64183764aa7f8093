/**
 * The results of a session of an older client revision (docs/revisions.md): list items, tool
 * results, prompt messages, resource contents and the `initialize` result lose what the
 * revision does not define, and content blocks it lacks become text. Applied after the usual
 * 2025-11-25 shaping; the input itself comes back when nothing changes.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject } from '../protocol/jsonrpc.js';
import { NEWEST_CLIENT_REVISION, hasSince } from './revisions.js';
import type { ClientRevision } from './revisions.js';
import { MISSING, annotationsOf, mapItems, withMember, without } from './revisionMembers.js';

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
