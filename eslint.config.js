// ESLint 9 flat config with typescript-eslint's type-aware rules, over src/ and test/.
// The rules that matter most for a gate that must fail closed: a promise nobody awaits
// (no-floating-promises) can let a check finish after the verdict, an async callback where a
// plain one is expected (no-misused-promises) swallows its rejection, a switch that misses a
// case (switch-exhaustiveness-check) silently skips a new finding code or entry kind, and `any`
// (no-explicit-any) switches the type checker off exactly where untrusted input comes in.
// `npm run lint` runs it; `npm test` does not.

const js = require('@eslint/js');
const { defineConfig } = require('eslint/config');
const tseslint = require('typescript-eslint');

module.exports = defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'hooks/**', 'server-hooks/**', 'bench/**', 'scripts/**', 'eslint.config.js'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: __dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Relaxed everywhere. `x[i]!` states that an index is in range: without
      // noUncheckedIndexedAccess the checker calls it unnecessary, but it documents a bound the
      // code relies on. An async method that implements an async interface (EvidenceSource.stat,
      // a file system for isomorphic-git) need not await anything.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
      // A security tool matches control characters on purpose (quoting output, refusing forged lines).
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read the CLI's JSON output and git's plumbing as untyped data and assert on it:
    // `any` there is no boundary of the gate.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Expected terminal output is matched with its literal spacing, as the terminal shows it.
      'no-regex-spaces': 'off',
    },
  },
);
