/**
 * Validation of frames against the official schemas of every revision (copies in
 * test/fixtures/schemas: 2026-07-28 upstream, 2025-11-25 to 2024-11-05 towards the client), and
 * the deny-list check for 2026-07-28 members that must never reach the client. Each definition
 * compiles once, on first use.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

interface Definition {
  anyOf?: { $ref: string }[];
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  type?: unknown;
}
type Schema = { $defs: Record<string, Definition> };

const read = (file: string): Schema & { definitions?: Record<string, Definition> } =>
  JSON.parse(readFileSync(new URL(`../fixtures/schemas/${file}`, import.meta.url), 'utf8')) as Schema & {
    definitions?: Record<string, Definition>;
  };

/** The schema of a file; the draft-07 schemas (before 2025-11-25) keep `definitions`. */
const load = (file: string): Schema => {
  const parsed = read(file);
  if (parsed.definitions === undefined) return parsed;
  const { definitions, ...rest } = parsed;
  return { ...rest, $defs: definitions };
};

/** The client revisions, newest first. */
export const CLIENT_REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type ClientRevision = (typeof CLIENT_REVISIONS)[number];

/**
 * The same schema with no members beyond those it names: every definition with `properties` and
 * no `additionalProperties` gets `additionalProperties: false`, and so does an inline `params` of
 * a definition. The official schemas leave objects open, so an `icons` or a `title` that a
 * revision does not define would pass them; this variant catches it. Nested schemas (`_meta`,
 * `inputSchema`, capability members) stay open.
 */
function closed(schema: Schema, key: '$defs' | 'definitions'): Record<string, unknown> {
  const close = (node: Definition): Definition =>
    node.properties !== undefined && node.additionalProperties === undefined
      ? { ...node, additionalProperties: false }
      : node;
  const defs: Record<string, Definition> = {};
  for (const [name, definition] of Object.entries(schema.$defs)) {
    const params = definition.properties?.['params'] as Definition | undefined;
    // Every revision allows `_meta` in params (the base Request and Notification), also where a
    // definition does not name it.
    const withParams =
      params !== undefined && params.properties !== undefined
        ? {
            ...definition,
            properties: {
              ...definition.properties,
              params: close({ ...params, properties: { _meta: { type: 'object' }, ...params.properties } }),
            },
          }
        : definition;
    defs[name] = close(withParams);
  }
  // The one member the bridge adds on purpose: `extensions` (MCP Apps) in the 2025-11-25
  // capabilities, which the schema of 2025-11-25 does not name (the tap allows it too).
  const capabilities = defs['ServerCapabilities'];
  if (key === '$defs' && capabilities?.properties !== undefined) {
    defs['ServerCapabilities'] = {
      ...capabilities,
      properties: { ...capabilities.properties, extensions: { type: 'object' } },
    };
  }
  const { $defs: _defs, ...rest } = schema as Schema & Record<string, unknown>;
  return { ...rest, [key]: defs };
}

/** One revision: its compiled definitions and its method → definition maps. */
interface Revision {
  /** Errors of `value` against `$defs/<name>`; each definition compiles once. */
  validate(name: string, value: unknown, prefix?: string): string[];
  /** The members of a union definition (ServerRequest, ClientRequest...) by their method. */
  methods(union: string): Map<string, string>;
}

function makeRevision(id: string, file: string, strict = false): Revision {
  const schema = load(file);
  const draft07 = !file.startsWith('2025-11-25') && !file.startsWith('2026-07-28');
  const key = draft07 ? 'definitions' : '$defs';
  const options = { strict: false, allErrors: true, validateFormats: false };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  const body = strict ? closed(schema, key) : read(file);
  ajv.addSchema({ ...body, $id: id });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (name: string): ValidateFunction => {
    let validate = compiled.get(name);
    if (validate === undefined) {
      if (schema.$defs[name] === undefined) throw new Error(`no definition ${name} in ${id}`);
      validate = ajv.getSchema(`${id}#/${key}/${name}`) as ValidateFunction | undefined;
      if (validate === undefined) throw new Error(`cannot compile ${name}`);
      compiled.set(name, validate);
    }
    return validate;
  };
  return {
    validate(name, value, prefix = '') {
      const validate = validator(name);
      if (validate(value)) return [];
      return (validate.errors ?? []).map(
        (e: ErrorObject) => `${name}${prefix}${e.instancePath} ${e.message ?? ''}`,
      );
    },
    methods(union) {
      const map = new Map<string, string>();
      for (const { $ref } of schema.$defs[union]?.anyOf ?? []) {
        const name = $ref.replace(/^#\/(\$defs|definitions)\//, '');
        const method = schema.$defs[name]?.properties?.['method'] as { const?: string } | undefined;
        if (method?.const !== undefined) map.set(method.const, name);
      }
      return map;
    },
  };
}

let legacy: Revision | undefined;
let modern: Revision | undefined;
const legacyRevision = (): Revision => (legacy ??= makeRevision('urn:mcp:2025-11-25', '2025-11-25.json'));
const modernRevision = (): Revision => (modern ??= makeRevision('urn:mcp:2026-07-28', '2026-07-28.json'));

/** 2025-11-25 result definitions by the method of the request. */
export const LEGACY_RESULTS: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'completion/complete': 'CompleteResult',
};

/** A member that only one kind of result has, to find the definition without the method. */
const RESULT_MARKERS: readonly [string, string][] = [
  ['protocolVersion', 'initialize'],
  ['tools', 'tools/list'],
  ['content', 'tools/call'],
  ['prompts', 'prompts/list'],
  ['messages', 'prompts/get'],
  ['resources', 'resources/list'],
  ['resourceTemplates', 'resources/templates/list'],
  ['contents', 'resources/read'],
  ['completion', 'completion/complete'],
];

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Errors of a frame the bridge writes to the client, against the 2025-11-25 schema: a server
 * request or notification by its method, an error response, or a result response whose result
 * is checked by `method` (or, without it, by the member that marks the kind of result).
 */
export function validateLegacyFrame(frame: unknown, direction: 'toClient', method?: string): string[] {
  if (direction !== 'toClient') return [`unknown direction ${String(direction)}`];
  return frameProblems(legacyRevision(), '2025-11-25', frame, method);
}

const clientRevisions = new Map<string, Revision>();
function clientRevision(revision: ClientRevision, strict: boolean): Revision {
  const key = `${revision}${strict ? '-closed' : ''}`;
  let made = clientRevisions.get(key);
  if (made === undefined) {
    made = makeRevision(`urn:mcp:${key}`, `${revision}.json`, strict);
    clientRevisions.set(key, made);
  }
  return made;
}

/**
 * Errors of a frame the bridge writes to a client of `revision`: against the official schema of
 * that revision, then against its closed variant (no member the revision does not define; see
 * `closed`), whose errors start with `closed: `.
 */
export function validateClientFrame(revision: ClientRevision, frame: unknown, method?: string): string[] {
  const official =
    revision === '2025-11-25'
      ? frameProblems(legacyRevision(), revision, frame, method)
      : frameProblems(clientRevision(revision, false), revision, frame, method);
  const strict = frameProblems(clientRevision(revision, true), revision, frame, method);
  return [...official, ...strict.map((problem) => `closed: ${problem}`)];
}

function frameProblems(
  revision: Revision,
  id: ClientRevision,
  frame: unknown,
  method: string | undefined,
): string[] {
  if (!isRecord(frame)) return ['the frame is not an object'];
  // Before 2025-11-25 the method definitions have no `jsonrpc` and `id`: the envelope checks them.
  const envelopes = id === '2025-11-25';
  if (typeof frame['method'] === 'string') {
    const request = 'id' in frame;
    const union = request ? 'ServerRequest' : 'ServerNotification';
    const name = revision.methods(union).get(frame['method']);
    if (name === undefined) return [`${union} of ${id} has no method ${frame['method']}`];
    if (envelopes) return revision.validate(name, frame);
    const { jsonrpc: _jsonrpc, id: _id, ...member } = frame;
    return [
      ...revision.validate(request ? 'JSONRPCRequest' : 'JSONRPCNotification', frame),
      ...revision.validate(name, member),
    ];
  }
  if ('error' in frame) return revision.validate(envelopes ? 'JSONRPCErrorResponse' : 'JSONRPCError', frame);
  const envelope = revision.validate(envelopes ? 'JSONRPCResultResponse' : 'JSONRPCResponse', frame);
  const result = frame['result'];
  const kind = method ?? RESULT_MARKERS.find(([member]) => isRecord(result) && member in result)?.[1];
  const name = kind === undefined ? undefined : LEGACY_RESULTS[kind];
  return name === undefined ? envelope : [...envelope, ...revision.validate(name, result, ' (result)')];
}

/** Errors of a request the bridge sends upstream, against the 2026-07-28 ClientRequest members. */
export function validateModernRequest(frame: unknown): string[] {
  if (!isRecord(frame) || typeof frame['method'] !== 'string' || !('id' in frame)) {
    return ['the frame is not a request'];
  }
  const revision = modernRevision();
  const name = revision.methods('ClientRequest').get(frame['method']);
  return name === undefined
    ? [`ClientRequest has no method ${frame['method']}`]
    : revision.validate(name, frame);
}

/** Validates a value against one definition of a revision (for tests of single objects). */
export function validateDefinition(
  revision: '2025-11-25' | '2026-07-28',
  name: string,
  value: unknown,
): string[] {
  return (revision === '2025-11-25' ? legacyRevision() : modernRevision()).validate(name, value);
}

/** Members of 2026-07-28 that a 2025-11-25 client must never see. */
export const LEAK_KEYS: readonly string[] = ['resultType', 'ttlMs', 'cacheScope'];
export const LEAK_PREFIX = 'io.modelcontextprotocol/';

/**
 * JSON pointers of every member named in LEAK_KEYS or starting with `io.modelcontextprotocol/`,
 * at any depth. `allow` lists keys that may pass (for example the MCP Apps extension id
 * `io.modelcontextprotocol/ui` in capabilities).
 */
export function findModernLeaks(value: unknown, allow: readonly string[] = []): string[] {
  const leaks: string[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => walk(item, `${pointer}/${index}`));
      return;
    }
    if (!isRecord(node)) return;
    for (const [key, child] of Object.entries(node)) {
      const path = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!allow.includes(key) && (LEAK_KEYS.includes(key) || key.startsWith(LEAK_PREFIX))) leaks.push(path);
      walk(child, path);
    }
  };
  walk(value, '');
  return leaks;
}
