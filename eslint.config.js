import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'migrations/', 'coverage/', 'dist/', '.exp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config/env.ts only.' },
      ],
    },
  },
  {
    files: ['src/config/env.ts', 'test/**', 'bin/**', '*.config.ts', 'eslint.config.js'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['bin/**', 'eslint.config.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // The dashboard's one script runs in the browser.
    files: ['src/web/static/**/*.js'],
    languageOptions: { globals: { document: 'readonly', fetch: 'readonly', location: 'readonly', setTimeout: 'readonly' } },
  },
);
