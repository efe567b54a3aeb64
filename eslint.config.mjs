// Lint with type information (typescript-eslint's recommended-type-checked rules): what a
// reviewer would flag and the compiler does not, such as a promise nobody awaits or a
// value of type any flowing into typed code. `make test` runs it (`pnpm -s lint`).
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['**/node_modules/**', '**/dist/**', 'libs/client/src/generated/**', '.gridlab/**', 'apps/web/vite.config.ts'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
);
