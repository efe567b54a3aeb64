// Lint with type information (typescript-eslint's recommended-type-checked rules): what a
// reviewer would flag and the compiler does not, such as a promise nobody awaits or a
// value of type any flowing into typed code. `make test` runs it (`pnpm -s lint`).
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Tests, benchmarks and fixtures: they read untyped bodies off the wire on purpose, and check them by assertion. */
const TEST_CODE = ['**/*.test.ts', '**/test/**', 'test-e2e/**', 'bench/**', '**/src/testing/**', 'libs/testing/**'];

export default defineConfig(
  { ignores: ['**/node_modules/**', '**/dist/**', 'libs/client/src/generated/**', '.gridlab/**', 'apps/web/vite.config.ts'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        // The dashboard's unit tests sit outside apps/web's tsconfig (the browser build's).
        projectService: { allowDefaultProject: ['apps/web/src/*.test.ts'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // An async function with no await is how a readiness check or a port turns a throw into a
      // rejection; the promise rules (floating, misused) catch what matters.
      '@typescript-eslint/require-await': 'off',
      // A timer declared before the closure that clears it, set once after: not a constant.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // A leading underscore marks a binding kept on purpose (a destructured field left out, an Express error handler's next).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: TEST_CODE,
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // expect(mock.method) and async callbacks that a fake implements without awaiting.
      '@typescript-eslint/unbound-method': 'off',
      // Parsed YAML and JSON of any shape; a failure rethrown as it came.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/only-throw-error': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
    },
  },
);
