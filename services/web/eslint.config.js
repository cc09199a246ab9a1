// ESLint flat config: typescript-eslint's type-aware recommended rules on src/,
// plain recommended rules on the Node scripts and end-to-end tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'dev-dist/', 'node_modules/'] },
  js.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}', 'vite.config.ts', 'vitest.config.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: globals.browser,
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  // The modules depend one way: lib (and i18n) below api, api below offline,
  // those below components and pages, pages below App and Root. Tests may
  // reach across.
  {
    files: ['src/lib/**/*.ts', 'src/i18n/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['../api/*', '../offline/*', '../components/*', '../pages/*', '../App', '../Root', '../hooks'], message: 'lib/ and i18n/ sit below the rest of the client: move the shared part down instead.' }] }] },
  },
  {
    files: ['src/api/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['../offline/*', '../components/*', '../pages/*', '../App', '../Root', '../hooks'], message: 'api/ depends on lib/ only.' }] }] },
  },
  {
    files: ['src/offline/**/*.ts', 'src/components/**/*.{ts,tsx}', 'src/pages/**/*.{ts,tsx}'],
    ignores: ['src/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: ['../App', '../Root'], message: 'App imports the pages; a page imports nothing of App (pages/context.ts holds what they share).' }] }] },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
