// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import rxjsX from 'eslint-plugin-rxjs-x';
import { localPlugin } from './lint/importCycles.js';

/**
 * The layers of ARCHITECTURE.md: each one and the layers it sits on directly. A layer may import
 * what it sits on and everything below that, nothing else (test/api/layers.test.ts checks that
 * this table and the one of ARCHITECTURE.md agree, and that the zones below refuse what they must).
 */
export const LAYERS = {
  'src/protocol': [],
  'src/ports': ['src/protocol'],
  'src/codec': ['src/ports'],
  operators: ['src/codec'],
  'src/bridge': ['operators'],
  'src/edges': ['operators'],
  'src/oauth': ['src/edges'],
  'src/profiles': ['src/bridge'],
  'src/index.ts': ['src/profiles'],
  'src/telemetry': ['src/ports'],
  'src/node': ['src/bridge', 'src/edges', 'src/profiles', 'src/telemetry'],
  'src/embed': ['src/node'],
  'src/cli': ['src/node', 'src/oauth'],
  'src/testing': ['src/ports'],
};

/** Layers that run in any runtime: no `node:*` module (the root entry is runtime-neutral). */
const NEUTRAL = [
  'src/protocol',
  'src/ports',
  'src/codec',
  'operators',
  'src/bridge',
  'src/profiles',
  'src/index.ts',
  'src/testing',
];

/** The layers `layer` may import: what it sits on, and below. */
export function below(layer) {
  const out = new Set();
  const visit = (name) => {
    for (const next of LAYERS[name]) {
      if (!out.has(next)) {
        out.add(next);
        visit(next);
      }
    }
  };
  visit(layer);
  return out;
}

/** A relative import specifier that reaches into the folder of `layer` (by its last segment). */
const intoLayer = (layer) => `^\\.\\.?/(?:.*/)?${layer.split('/').pop()}/`;

/**
 * How deep below its layer's folder the zones go one by one (`src/oauth/store/lock.ts` is depth
 * 1); the zone of this depth also takes every file below it.
 */
const MAX_DEPTH = 4;

/**
 * The specifier of the root entry `src/index.ts` from a file `depth` folders below `layer`: the
 * root entry is the package's face to its users, so no layer imports it (ARCHITECTURE.md). The
 * zone of a depth names it exactly, so `../index.js` of a nested folder (src/oauth/store/index.ts)
 * stays allowed.
 */
function rootEntry(layer, depth) {
  const ups = layer.split('/').length - 1 + depth + (layer === 'operators' ? 1 : 0);
  const up = depth === MAX_DEPTH ? `(?:\\.\\./){${ups},}` : ups === 0 ? '\\./' : '(?:\\.\\./)'.repeat(ups);
  return `^${up}${layer === 'operators' ? 'src/' : ''}index(?:\\.[jt]s)?$`;
}

/** The import restrictions of one layer for its files `depth` folders below its folder. */
function layerPatterns(layer, depth) {
  const folders = Object.keys(LAYERS).filter((name) => !name.endsWith('.ts'));
  const allowed = below(layer);
  const patterns = folders
    .filter((other) => other !== layer && !allowed.has(other))
    .map((other) => ({
      regex: intoLayer(other),
      message: `${layer} does not import ${other} (ARCHITECTURE.md).`,
    }));
  // A self-import through the package name would go around the zones.
  patterns.push({ regex: '^mcp-bridge-sdk(?:/|$)', message: 'Import the sources, not the package.' });
  if (layer !== 'src/index.ts') {
    patterns.push({
      regex: rootEntry(layer, depth),
      message: `${layer} does not import the root entry src/index.ts: import the file that has what it needs (ARCHITECTURE.md).`,
    });
  }
  if (layer !== 'operators') {
    // What operators/internal/ holds is the operators' own business: it has no stable shape.
    patterns.push({
      regex: '(?:^|/)operators/internal/',
      message: `${layer} does not import operators/internal/: only operators/ does (ARCHITECTURE.md).`,
    });
  }
  if (NEUTRAL.includes(layer)) {
    patterns.push({ group: ['node:*'], message: `${layer} runs in any runtime: no Node built-in module.` });
  }
  if (layer === 'src/protocol' || layer === 'src/codec') {
    patterns.push({ group: ['rxjs', 'rxjs/*'], message: `${layer} is pure: no rxjs.` });
  }
  if (layer === 'src/ports') {
    patterns.push({
      group: ['rxjs', 'rxjs/*'],
      allowTypeImports: true,
      message: 'src/ports loads no rxjs: its types only.',
    });
  }
  if (layer === 'operators') {
    patterns.push({ group: ['rxjs/internal/*'], message: 'Operators use the public rxjs API.' });
  }
  return patterns;
}

/**
 * The `no-restricted-imports` zones of the layers: every import against the arrows is an error.
 * One zone per layer and depth of folder, because the specifier of the root entry depends on it.
 */
function layerZones() {
  return Object.keys(LAYERS).flatMap((layer) => {
    if (layer.endsWith('.ts')) {
      return [
        {
          files: [layer],
          rules: {
            '@typescript-eslint/no-restricted-imports': ['error', { patterns: layerPatterns(layer, 0) }],
          },
        },
      ];
    }
    return Array.from({ length: MAX_DEPTH + 1 }, (_, depth) => ({
      files: [`${layer}/${'*/'.repeat(depth)}${depth === MAX_DEPTH ? '**/' : ''}*.ts`],
      rules: {
        '@typescript-eslint/no-restricted-imports': ['error', { patterns: layerPatterns(layer, depth) }],
      },
    }));
  });
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'eslint.config.js', 'lint/**', 'site/**'] },
  {
    files: ['src/**/*.ts', 'operators/**/*.ts'],
    plugins: { local: localPlugin },
    rules: { 'local/no-import-cycle': 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'rxjs-x': rxjsX },
    rules: {
      ...rxjsX.configs.recommended.rules,
      'rxjs-x/no-exposed-subjects': 'error',
      'rxjs-x/no-subclass': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  ...layerZones(),
  {
    // Operators are pure stream logic: time goes through RxJS schedulers (docs/style.md#style-layout).
    files: ['operators/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='setTimeout']", message: 'Use timer() from rxjs.' },
        { selector: "CallExpression[callee.name='setInterval']", message: 'Use interval() from rxjs.' },
        { selector: "NewExpression[callee.name='Promise']", message: 'No Promises in operators.' },
      ],
    },
  },
  {
    // The examples are what a user writes: they reach the library through its public entries only.
    files: ['examples/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\.?/(?:.*/)?(?:src|operators)/',
              message: 'Examples import mcp-bridge-sdk and its entries, not the sources.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/edges/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['test/**/*.ts', 'marbles/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'rxjs-x/no-ignored-error': 'off',
    },
  },
);
