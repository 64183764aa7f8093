// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import rxjsX from 'eslint-plugin-rxjs-x';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'eslint.config.js', 'site/**'] },
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
  {
    // Operators are pure stream logic: time goes through RxJS schedulers (style.md §3.7 rule 8).
    files: ['operators/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: "CallExpression[callee.name='setTimeout']", message: 'Use timer() from rxjs.' },
        { selector: "CallExpression[callee.name='setInterval']", message: 'Use interval() from rxjs.' },
        { selector: "NewExpression[callee.name='Promise']", message: 'No Promises in operators.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'Operators do no Node I/O.' },
            { group: ['**/src/edges/**', '**/src/bridge/**', '**/src/cli/**'], message: 'Layering.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/protocol/**/*.ts', 'src/codec/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*'], message: 'protocol/ and codec/ are pure.' },
            { group: ['rxjs', '**/operators/**', '**/edges/**', '**/bridge/**'], message: 'Layering.' },
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
