// @ts-check
/**
 * No runtime import cycle in src/ or operators/ (ARCHITECTURE.md): a cycle makes the order in
 * which modules run depend on which one is imported first. The one home of that rule: the lint
 * rule `local/no-import-cycle` (eslint.config.js) reports each import that closes a cycle, and
 * test/api/importCycles.test.ts runs the same functions over the project. Type-only imports
 * (`import type`, `export type`, braces of `type` names only) vanish from the built code and are
 * left out; `import()` expressions load later and are left out too.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['src', 'operators'];

const STATEMENT = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'([^']+)'/gm;
const SIDE_EFFECT = /^\s*import\s+'([^']+)'/gm;

/**
 * Every .ts file (not a declaration) under `folder`, relative to the root.
 * @param {string} folder
 * @returns {string[]}
 */
function sources(folder) {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * Whether the clause of an import or export statement names types only.
 * @param {string} clause
 */
function typesOnly(clause) {
  const braces = /^\{([^}]*)\}$/.exec(clause.trim());
  if (braces === null) return false;
  const names = (braces[1] ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.length > 0 && names.every((name) => name.startsWith('type '));
}

/**
 * The files of the project that `text` (the source of `file`, relative to the root) imports at
 * run time, relative to the root.
 * @param {string} file
 * @param {string} text
 * @returns {string[]}
 */
export function runtimeImports(file, text) {
  /** @type {string[]} */
  const specifiers = [];
  for (const match of text.matchAll(STATEMENT)) {
    if (match[2] !== undefined || typesOnly(match[3] ?? '')) continue;
    specifiers.push(match[4] ?? '');
  }
  for (const match of text.matchAll(SIDE_EFFECT)) specifiers.push(match[1] ?? '');
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

/**
 * The cycles of a graph: each strongly connected component of more than one file (or a
 * self-import), sorted (Tarjan's algorithm).
 * @param {ReadonlyMap<string, readonly string[]>} graph
 * @returns {string[][]}
 */
export function cyclesOf(graph) {
  /** @type {Map<string, number>} */
  const index = new Map();
  /** @type {Map<string, number>} */
  const low = new Map();
  /** @type {string[]} */
  const stack = [];
  const onStack = new Set();
  /** @type {string[][]} */
  const found = [];
  let next = 0;
  /** @param {string} file */
  const visit = (file) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    /** @type {string[]} */
    const component = [];
    let member;
    do {
      member = stack.pop() ?? file;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/** The runtime imports of each file read so far, with the time of the version read. */
/** @type {Map<string, { readonly mtimeMs: number, readonly imports: string[] }>} */
const readSoFar = new Map();

/**
 * The runtime imports of `file` as on disk; read again only when the file changed, so that one
 * lint run reads each file once.
 * @param {string} file
 * @returns {string[]}
 */
function importsOnDisk(file) {
  const path = join(ROOT, file);
  const { mtimeMs } = statSync(path);
  const known = readSoFar.get(file);
  if (known?.mtimeMs === mtimeMs) return known.imports;
  const imports = runtimeImports(file, readFileSync(path, 'utf8'));
  readSoFar.set(file, { mtimeMs, imports });
  return imports;
}

/**
 * The runtime import graph of src/ and operators/, read from disk; `replace` gives the text of
 * one file instead (the lint rule's file as the editor holds it).
 * @param {{ readonly file: string, readonly text: string }} [replace]
 * @returns {Map<string, string[]>}
 */
export function projectGraph(replace) {
  const files = FOLDERS.flatMap(sources);
  return new Map(
    files.map((file) => [
      file,
      file === replace?.file ? runtimeImports(file, replace.text) : importsOnDisk(file),
    ]),
  );
}

/** @type {import('eslint').Rule.RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No runtime import cycle in src/ or operators/ (ARCHITECTURE.md).' },
    schema: [],
  },
  create(context) {
    const file = relative(ROOT, context.filename);
    if (!FOLDERS.some((folder) => file.startsWith(`${folder}/`))) return {};
    return {
      Program(node) {
        const graph = projectGraph({ file, text: context.sourceCode.text });
        const cycle = cyclesOf(graph).find((members) => members.includes(file));
        if (cycle === undefined) return;
        context.report({
          node,
          message: `A runtime import cycle (ARCHITECTURE.md): ${cycle.join(', ')}. Move what they share into a file that imports none of them.`,
        });
      },
    };
  },
};

export const localPlugin = { rules: { 'no-import-cycle': noImportCycle } };
