/**
 * Every operator has an `@example` in its doc comment, and it type-checks against the public
 * entries: the example is cut out of the comment, written next to
 * node_modules (so that rxjs resolves) and compiled with the project's strict settings, with
 * `mcp-bridge-sdk/*` mapped to the sources.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const OPERATORS = readdirSync(`${root}operators`).filter((name) => name.endsWith('.ts') && name !== 'index.ts');

/** The code of the `@example` of a doc comment: the comment lines up to the next tag or its end. */
export function exampleOf(source: string): string | undefined {
  const lines = source.split('\n');
  const start = lines.findIndex((line) => line === ' * @example');
  if (start < 0) return undefined;
  const code: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line === ' */' || /^ \* @\w+/.test(line)) break;
    code.push(line === ' *' ? '' : line.replace(/^ \* /, ''));
  }
  return code.join('\n');
}

function typeErrors(files: Readonly<Record<string, string>>): string[] {
  const dir = `${root}node_modules/.cache/operator-examples/`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const paths = Object.entries(files).map(([name, code]) => {
    // Each example is a module of its own, so that the names of two examples do not collide.
    writeFileSync(`${dir}${name}`, `${code}\nexport {};\n`);
    return `${dir}${name}`;
  });
  const program = ts.createProgram(paths, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    paths: {
      'mcp-bridge-sdk': [`${root}src/index.ts`],
      'mcp-bridge-sdk/operators': [`${root}operators/index.ts`],
      'mcp-bridge-sdk/testing': [`${root}src/testing/index.ts`],
    },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file !== undefined && diagnostic.file.fileName.startsWith(dir))
    .map(
      (diagnostic) =>
        `${diagnostic.file!.fileName.slice(dir.length)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
    );
}

describe('operator examples', () => {
  const examples = Object.fromEntries(
    OPERATORS.map((name) => [name, exampleOf(readFileSync(`${root}operators/${name}`, 'utf8'))]),
  );

  it('every operator has an @example that imports it from mcp-bridge-sdk/operators', () => {
    expect(OPERATORS.length).toBeGreaterThanOrEqual(7);
    for (const name of OPERATORS) {
      expect(examples[name], name).toContain(`from 'mcp-bridge-sdk/operators'`);
      expect(examples[name], name).toContain(name.replace(/\.ts$/, ''));
    }
  });

  it('every @example type-checks with the strict settings of the project', () => {
    const files = Object.fromEntries(Object.entries(examples).map(([name, code]) => [name, code ?? '']));
    expect(typeErrors(files)).toEqual([]);
  });

  it('the check finds a type error in an example', () => {
    expect(typeErrors({ 'broken.ts': "import { withDeadline } from 'mcp-bridge-sdk/operators';\nwithDeadline({ limitMs: '1' });" })).not.toEqual([]);
  });
});
