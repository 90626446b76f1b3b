// Lint rules of the repository. `npm run lint` runs them with zero warnings allowed.
// typescript-eslint's strictTypeChecked set, with the type information of tsconfig.json
// (docs/decisions/066-type-aware-lint-and-formatter.md says which options differ and why).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'reports/', 'data/', '.tmp/', '.cache/', 'dist/', 'conformance/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      ecmaVersion: 2024,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      // Non-null assertions are allowed where a comment says why the value exists.
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-control-regex': 'off',
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
      // Numbers and booleans read naturally in messages; objects, undefined and null still need a choice.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      // `() => void doSomething()` style callbacks stay as short arrows.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    // Tests read JSON answers (supertest's res.body, fetch's json()) as the untyped values they are; asserting
    // their shape is the test's job, so member access on them is allowed there. Production code stays free of any.
    files: ['**/*.test.ts', '**/*.slow-test.ts', 'server/testing/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Stand-ins implement promise-returning interfaces without awaiting anything.
      '@typescript-eslint/require-await': 'off',
      // Tests check at run time what the types already promise: that is the point of a test.
      '@typescript-eslint/no-unnecessary-condition': 'off',
      // Stand-ins and receivers: a fake built as a plain object, Request.formData() to read what a client sent.
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
      '@typescript-eslint/no-deprecated': 'off',
    },
  },
  {
    // The suite reads what a target sends, which its types describe only as what the spec expects: a check that
    // "cannot happen" by the types is exactly the check of a target that does it anyway. Checks implement a
    // promise-returning interface, some without awaiting.
    files: ['conformance/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The lint configuration itself is JavaScript outside the TypeScript project.
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
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
    // Size (decision 115): a hand-written file at most 600 lines, a function at most 120, every line counted
    // (comments and blank lines too: the length a reader scrolls). Generated code is exempt: client/openapi-types.ts
    // comes from docs/openapi.json (npm run openapi:generate); dist/ and conformance/dist/ are ignored above.
    files: ['**/*.ts', '**/*.js'],
    ignores: ['client/openapi-types.ts'],
    rules: {
      'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true }],
    },
  },
  {
    // Tests count for the file limit; their describe() and it() callbacks are lists of cases, not functions to
    // read as one, so the function limit does not apply to them.
    files: ['**/*.test.ts', '**/*.slow-test.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  // The folder rules (which folder may import which) are dependency-cruiser's: .dependency-cruiser.js, `npm run lint:deps`.
);
