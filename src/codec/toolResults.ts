/**
 * The tool-specific result rules: `tools/list` (docs/results.md#results-items-fix, docs/results.md#results-output-schema) and
 * `tools/call` (docs/results.md#results-shape). The callers have already removed the 2026-07-28 members.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { JsonObject, JsonValue } from '../protocol/jsonrpc.js';
import { keepDataIconsOfBlock } from './icons.js';
import { fixArrayItems } from './itemsFix.js';
import { omit } from './objects.js';

/** The quirks of `tools/list` a profile turns on or off (src/profiles/profile.ts). */
export interface ToolQuirks {
  readonly normalizeArrayItems: boolean;
  readonly dropNonObjectOutputSchema: boolean;
}

const ALL_QUIRKS: ToolQuirks = { normalizeArrayItems: true, dropNonObjectOutputSchema: true };

/** Shapes one tool of `tools/list`: the items fix of its input schema, the output schema rule. */
export function shapeTool(
  tool: JsonObject,
  onItemsFixed?: (tool: string, pointer: string) => void,
  quirks: ToolQuirks = ALL_QUIRKS,
): JsonObject {
  let out = tool;
  const name = typeof tool['name'] === 'string' ? tool['name'] : '';
  if (quirks.normalizeArrayItems && Object.hasOwn(tool, 'inputSchema')) {
    const schema = tool['inputSchema'] as JsonValue;
    const fixed = fixArrayItems(schema, onItemsFixed && ((pointer) => onItemsFixed(name, pointer)));
    if (fixed !== schema) out = { ...out, inputSchema: fixed };
  }
  if (quirks.dropNonObjectOutputSchema && Object.hasOwn(tool, 'outputSchema')) {
    const schema = tool['outputSchema'];
    // 2025-11-25 allows only object output schemas (docs/results.md#results-output-schema); 2026-07-28 allows any schema.
    if (!isObject(schema) || schema['type'] !== 'object') out = omit(out, ['outputSchema']);
  }
  return out;
}

/**
 * Shapes a `tools/call` result (docs/results.md#results-shape, docs/results.md#results-tools-call): `content` is always an array of blocks;
 * a non-null `structuredContent` without any text block gets a text block with its compact
 * JSON, because VS Code shows the model only the content. A `structuredContent` that is not an
 * object is then removed: 2026-07-28 allows any JSON value there, 2025-11-25 only an object
 * (docs/results.md#results-tools-call and docs/results.md#results-shape trap 26; where the reference passes it unchanged, the
 * protocol wins).
 */
export function shapeToolCall(
  result: JsonObject,
  remote: boolean,
): JsonObject | { readonly invalid: string } {
  const present = Object.hasOwn(result, 'content');
  const content = present ? result['content'] : [];
  if (!Array.isArray(content)) return { invalid: 'tools/call: content is not an array' };
  if (!content.every(isObject)) return { invalid: 'tools/call: a content block is not an object' };
  let blocks: JsonValue[] = remote ? content.map(keepDataIconsOfBlock) : content;
  const structured = result['structuredContent'];
  if (structured !== undefined && structured !== null && !content.some((block) => block['type'] === 'text')) {
    blocks = [...blocks, { type: 'text', text: JSON.stringify(structured) }];
  }
  const shaped = present && blocks === content ? result : { ...result, content: blocks };
  return structured === undefined || isObject(structured) ? shaped : omit(shaped, ['structuredContent']);
}
