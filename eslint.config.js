// @ts-check
/**
 * ESLint: the recommended sets for JavaScript, TypeScript and Astro, and the layer boundaries of the
 * code (eslint-rules/boundaries.js). Formatting is Prettier's job (.prettierrc.json), not ESLint's.
 */
import js from '@eslint/js';
import astro from 'eslint-plugin-astro';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import boundaries from './eslint-rules/boundaries.js';

/** The layers built on top of src/lib: they render and call the domain, they hold no SQL. */
const PAGE_LAYERS = [
  'src/pages/**/*.{ts,tsx,astro}',
  'src/components/**/*.{ts,tsx,astro}',
  'src/layouts/**/*.{ts,tsx,astro}',
  'src/islands/**/*.{ts,tsx,astro}',
];

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', '.astro/', 'data/', 'test-results/', 'playwright-report/', 'bench/results/'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...astro.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_name` marks a parameter or binding that is there for its position or to drop a key.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A new error that tells the operator what to do is thrown on purpose instead of the one caught.
      'preserve-caught-error': 'off',
    },
  },
  {
    // Tests read fixtures and loosely shaped answers; `any` there costs nothing at run time.
    files: ['tests/**', 'src/**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/islands/**/*.{ts,tsx}', 'src/**/*.astro'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    plugins: { boundaries },
  },
  {
    files: ['src/lib/**/*.{ts,tsx,js,mjs}'],
    // Colocated tests run under Vitest only; one of them checks our policy against Astro's renderer.
    ignores: ['src/lib/**/*.test.ts'],
    rules: { 'boundaries/no-framework-in-lib': 'error' },
  },
  {
    files: PAGE_LAYERS,
    rules: { 'boundaries/no-db-in-pages': 'error', 'boundaries/no-sql-in-pages': 'error' },
  },
);
