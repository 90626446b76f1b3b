// Lint rules of the repository. `npm run lint` runs them with zero warnings allowed.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import boundaries from './eslint.import-boundaries.js';

export default tseslint.config(
  { ignores: ['node_modules/', 'reports/', 'data/', '.tmp/', 'dist/', 'conformance/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', AbortController: 'readonly', fetch: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Non-null assertions are allowed where a comment says why the value exists.
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    // Route handlers shape replies; only errors.ts writes error bodies.
    files: ['server/features/**/*.ts', 'server/control/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='json'][callee.object.callee.property.name='status']",
          message: 'Return a Reply or throw ApiError; error bodies are written by errors.ts only.',
        },
      ],
    },
  },
  {
    // The floor plan's import boundaries (server/README.md; eslint.import-boundaries.js).
    files: ['server/**/*.ts', 'conformance/**/*.ts'],
    plugins: { mas: boundaries },
    rules: { 'mas/import-boundaries': 'error' },
  },
  {
    // The conformance suite is a black box: it must never import the reference gateway.
    files: ['conformance/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/server/**', '../server/*', '../../server/*'], message: 'conformance/ must not import from server/' }] }],
    },
  },
);
