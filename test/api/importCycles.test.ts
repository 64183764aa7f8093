/**
 * No runtime import cycle in src/ or operators/ (ARCHITECTURE.md). The rule's one home is
 * lint/importCycles.js: the lint rule `local/no-import-cycle` of eslint.config.js and this test
 * run the same functions. Type-only imports and `import()` expressions do not count.
 */
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

interface CycleModule {
  runtimeImports(file: string, text: string): string[];
  cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][];
  projectGraph(replace?: { file: string; text: string }): Map<string, string[]>;
}

const ROOT = new URL('../../', import.meta.url);
let cycles: CycleModule;

beforeAll(async () => {
  cycles = (await import(new URL('lint/importCycles.js', ROOT).href)) as CycleModule;
});

describe('import cycles', () => {
  it('src/ and operators/ have no runtime import cycle', () => {
    expect(cycles.cyclesOf(cycles.projectGraph())).toEqual([]);
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
    const graph = new Map(Object.entries(files).map(([file, text]) => [file, cycles.runtimeImports(file, text)]));
    expect(graph.get('src/d2.ts')).toEqual(['src/d.ts']);
    expect(cycles.cyclesOf(graph)).toEqual([['src/a.ts', 'src/b.ts', 'src/c.ts']]);
  });

  it('lint refuses a file that closes a cycle, naming its members', async () => {
    const eslint = new ESLint({ cwd: new URL('.', ROOT).pathname });
    // forwardRounds.ts imports forwardState.ts: this import back closes a cycle.
    const text = "import { roundsSink } from './forwardRounds.js';\nexport const probe = roundsSink;\n";
    const [report] = await eslint.lintText(text, { filePath: 'operators/internal/forwardState.ts' });
    const messages = (report?.messages ?? []).filter((message) => message.ruleId === 'local/no-import-cycle');
    expect(messages.map((message) => message.message)).toEqual([
      'A runtime import cycle (ARCHITECTURE.md): operators/internal/forwardRounds.ts, operators/internal/forwardState.ts. Move what they share into a file that imports none of them.',
    ]);
  });
});
