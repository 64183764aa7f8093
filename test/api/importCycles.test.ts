/**
 * No runtime import cycle in src/ or operators/ (ARCHITECTURE.md): a cycle makes the order in
 * which modules run depend on which one is imported first. Type-only imports (`import type`,
 * `export type`, braces of `type` names only) vanish from the built code and are left out;
 * `import()` expressions load later and are left out too.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every .ts file (not a declaration) under `folder`, relative to the root. */
function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

const STATEMENT = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*'([^']+)'/gm;
const SIDE_EFFECT = /^\s*import\s+'([^']+)'/gm;

/** Whether the clause of an import or export statement names types only. */
function typesOnly(clause: string): boolean {
  const braces = /^\{([^}]*)\}$/.exec(clause.trim());
  if (braces === null) return false;
  const names = (braces[1] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  return names.length > 0 && names.every((name) => name.startsWith('type '));
}

/** The files of the project that `text` (the source of `file`) imports at run time. */
function runtimeImports(file: string, text: string): string[] {
  const specifiers: string[] = [];
  for (const match of text.matchAll(STATEMENT)) {
    if (match[2] !== undefined || typesOnly(match[3] ?? '')) continue;
    specifiers.push(match[4] ?? '');
  }
  for (const match of text.matchAll(SIDE_EFFECT)) specifiers.push(match[1] ?? '');
  return specifiers
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

/** The cycles of a graph: each strongly connected component of more than one file (or a self-import), sorted. */
function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) found.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

function projectGraph(): Map<string, string[]> {
  const files = [...sources('src'), ...sources('operators')];
  return new Map(files.map((file) => [file, runtimeImports(file, readFileSync(join(ROOT, file), 'utf8'))]));
}

describe('import cycles', () => {
  it('src/ and operators/ have no runtime import cycle', () => {
    expect(cyclesOf(projectGraph())).toEqual([]);
  });

  it('finds a cycle through runtime imports, and none through type-only ones', () => {
    const files: Record<string, string> = {
      'src/a.ts': "import { b } from './b.js';\n",
      'src/b.ts': "import { c } from './c.js';\nimport type { A } from './a.js';\n",
      'src/c.ts': "export { a } from './a.js';\n",
      'src/d.ts': "import { type E } from './e.js';\nexport type { D } from './d2.js';\n",
      'src/e.ts': "import { d } from './d.js';\n",
      'src/d2.ts': "import './d.js';\n",
    };
    const graph = new Map(Object.entries(files).map(([file, text]) => [file, runtimeImports(file, text)]));
    expect(graph.get('src/d2.ts')).toEqual(['src/d.ts']);
    expect(cyclesOf(graph)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });
});
