/**
 * `x-mcp-header` annotations of tool input schemas (docs/http-upstream.md#http-x-mcp-header): validation, the
 * cache of the tools seen in `tools/list` results, and the `Mcp-Param-*` headers of a call.
 * Pure: no I/O.
 */
import type { JsonObject, JsonValue } from '../../protocol/jsonrpc.js';
import { isObject } from '../../protocol/jsonrpc.js';
import { encodeHeaderValue, headerText } from './headers.js';

const ANNOTATION = 'x-mcp-header';
const HEADER_PREFIX = 'Mcp-Param-';
/** RFC 9110 `token` (`1*tchar`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_TYPES = new Set(['string', 'integer', 'boolean']);
/** Deeper schemas make the tool invalid rather than the walk overflow the stack. */
const MAX_SCHEMA_DEPTH = 512;

/** Keywords whose value is one subschema or an array of subschemas. */
const SUBSCHEMA_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'contentSchema',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
] as const;
/** Keywords whose value maps names to subschemas. */
const SUBSCHEMA_MAP_KEYWORDS = [
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
] as const;

/** One annotated property: the path of property names from the root, and the header name. */
export interface ToolHeaderDeclaration {
  readonly path: readonly string[];
  readonly header: string;
}

/** The verdict on one tool's input schema. */
export type ToolHeaderScan =
  | { readonly valid: true; readonly declarations: readonly ToolHeaderDeclaration[] }
  | { readonly valid: false; readonly reason: string };

const where = (path: readonly string[]): string =>
  path.length === 0 ? 'the root of the input schema' : `the property ${JSON.stringify(path.join('.'))}`;

/**
 * Checks every `x-mcp-header` of an input schema against the rules of docs/http-upstream.md#http-x-mcp-header:
 * a non-empty RFC 9110 token, unique regardless of case, only on properties of type `string`,
 * `integer` or `boolean`, and only on properties reached from the root through `properties` keys
 * alone. An annotation anywhere else (under `items`, `oneOf`, `$defs`, …) makes the tool invalid.
 * Reasons name property paths but never header names or values.
 */
export function scanToolHeaders(inputSchema: JsonValue | undefined): ToolHeaderScan {
  const declarations: ToolHeaderDeclaration[] = [];
  const seen = new Set<string>();

  const visit = (
    node: JsonValue | undefined,
    path: readonly string[],
    reachable: boolean,
    depth: number,
  ): string | undefined => {
    if (!isObject(node)) return undefined;
    if (depth > MAX_SCHEMA_DEPTH) return `the input schema is nested deeper than ${MAX_SCHEMA_DEPTH} levels`;
    if (ANNOTATION in node) {
      const header = node[ANNOTATION];
      if (!reachable || path.length === 0) {
        return `${where(path)} has an x-mcp-header, which is only allowed on properties reached through "properties" keys`;
      }
      if (typeof header !== 'string' || !TOKEN.test(header)) {
        return `the x-mcp-header of ${where(path)} is not an HTTP token`;
      }
      const type = node['type'];
      if (typeof type !== 'string' || !HEADER_TYPES.has(type)) {
        return `the x-mcp-header of ${where(path)} is on a property whose type is not string, integer or boolean`;
      }
      const lower = header.toLowerCase();
      if (seen.has(lower)) return `the x-mcp-header of ${where(path)} repeats the name of another property`;
      seen.add(lower);
      declarations.push({ path, header });
    }
    const properties = node['properties'];
    if (isObject(properties)) {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable, depth + 1);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of SUBSCHEMA_KEYWORDS) {
      const value = node[keyword];
      for (const child of Array.isArray(value) ? value : [value]) {
        const fault = visit(child, [...path, `<${keyword}>`], false, depth + 1);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
      const value = node[keyword];
      if (!isObject(value)) continue;
      for (const child of Object.values(value)) {
        const fault = visit(child, [...path, `<${keyword}>`], false, depth + 1);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };

  const reason = visit(inputSchema, [], true, 0);
  return reason === undefined ? { valid: true, declarations } : { valid: false, reason };
}

/**
 * The `Mcp-Param-<Name>` headers of one call: the value at each annotated path of the arguments,
 * converted and encoded by the rules of docs/http-upstream.md#http-header-values. Missing or null values send
 * no header.
 */
export function paramHeaders(
  declarations: readonly ToolHeaderDeclaration[],
  args: JsonValue | undefined,
): Array<readonly [string, string]> {
  const headers: Array<readonly [string, string]> = [];
  for (const { path, header } of declarations) {
    let node: JsonValue | undefined = args;
    for (const key of path) node = isObject(node) ? node[key] : undefined;
    const text = headerText(node);
    if (text !== undefined) headers.push([`${HEADER_PREFIX}${header}`, encodeHeaderValue(text)]);
  }
  return headers;
}

/** A tool that {@link ToolHeaderCache.learn} hid. */
export interface HiddenTool {
  readonly name: string;
  readonly reason: string;
}

/**
 * The tool definitions of the upstream server as far as headers are concerned, learnt from the
 * `tools/list` results that pass through the connection. A later page or list replaces the entry
 * of a tool with the same name.
 */
export interface ToolHeaderCache {
  /**
   * Records the tools of one `tools/list` result and returns the result without the tools whose
   * annotations are invalid (the same object when none is), plus the newly hidden tools.
   */
  learn(result: JsonObject): { readonly result: JsonObject; readonly hidden: readonly HiddenTool[] };
  /** True when a `tools/list` result named the tool. */
  known(name: string): boolean;
  /** The reason a tool is hidden, or undefined when it is usable (or unknown). */
  invalidReason(name: string): string | undefined;
  /** The `Mcp-Param-*` headers of a call (none for an unknown or invalid tool). */
  headersFor(name: string, args: JsonValue | undefined): Array<readonly [string, string]>;
  /** Hidden tools: name → reason. A snapshot. */
  invalidTools(): Map<string, string>;
}

export function createToolHeaderCache(): ToolHeaderCache {
  const tools = new Map<string, ToolHeaderScan>();
  return {
    learn(result) {
      const list = result['tools'];
      if (!Array.isArray(list)) return { result, hidden: [] };
      const hidden: HiddenTool[] = [];
      const kept = list.filter((tool) => {
        if (!isObject(tool) || typeof tool['name'] !== 'string') return true;
        const name = tool['name'];
        const scan = scanToolHeaders(tool['inputSchema']);
        const before = tools.get(name);
        tools.set(name, scan);
        if (scan.valid) return true;
        if (before?.valid !== false || before.reason !== scan.reason)
          hidden.push({ name, reason: scan.reason });
        return false;
      });
      return { result: kept.length === list.length ? result : { ...result, tools: kept }, hidden };
    },
    known: (name) => tools.has(name),
    invalidReason(name) {
      const scan = tools.get(name);
      return scan?.valid === false ? scan.reason : undefined;
    },
    headersFor(name, args) {
      const scan = tools.get(name);
      return scan?.valid === true ? paramHeaders(scan.declarations, args) : [];
    },
    invalidTools() {
      const out = new Map<string, string>();
      for (const [name, scan] of tools) if (!scan.valid) out.set(name, scan.reason);
      return out;
    },
  };
}
