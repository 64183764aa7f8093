/**
 * Validation of frames against the official schemas of both revisions (copies in
 * test/fixtures/schemas), and the deny-list check for 2026-07-28 members that must never reach
 * the client. Each definition compiles once, on first use.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';

type Schema = { $defs: Record<string, { anyOf?: { $ref: string }[]; properties?: Record<string, unknown> }> };

const load = (file: string): Schema =>
  JSON.parse(readFileSync(new URL(`../fixtures/schemas/${file}`, import.meta.url), 'utf8')) as Schema;

/** One revision: its compiled definitions and its method → definition maps. */
interface Revision {
  /** Errors of `value` against `$defs/<name>`; each definition compiles once. */
  validate(name: string, value: unknown, prefix?: string): string[];
  /** The members of a union definition (ServerRequest, ClientRequest...) by their method. */
  methods(union: string): Map<string, string>;
}

function makeRevision(id: string, file: string): Revision {
  const schema = load(file);
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...schema, $id: id });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (name: string): ValidateFunction => {
    let validate = compiled.get(name);
    if (validate === undefined) {
      if (schema.$defs[name] === undefined) throw new Error(`no definition ${name} in ${id}`);
      validate = ajv.getSchema(`${id}#/$defs/${name}`);
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
        const name = $ref.replace('#/$defs/', '');
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
  if (!isRecord(frame)) return ['the frame is not an object'];
  const revision = legacyRevision();
  if (typeof frame['method'] === 'string') {
    const union = 'id' in frame ? 'ServerRequest' : 'ServerNotification';
    const name = revision.methods(union).get(frame['method']);
    return name === undefined
      ? [`${union} has no method ${frame['method']}`]
      : revision.validate(name, frame);
  }
  if ('error' in frame) return revision.validate('JSONRPCErrorResponse', frame);
  const envelope = revision.validate('JSONRPCResultResponse', frame);
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
