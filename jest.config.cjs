// One jest configuration for the whole workspace. TypeScript is compiled by swc (no
// type-checking here: `pnpm typecheck` does that), to CommonJS, file by file.
/** @type {import('jest').Config} */
const swc = [
  '@swc/jest',
  {
    jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
    module: { type: 'commonjs' },
  },
];
// ESM-only dependencies that jest's CommonJS runtime must have transformed too.
const ESM_DEPS = ['@noble', 'node-pg-migrate/dist/esm'];
const common = {
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(\\.pnpm/)?(${ESM_DEPS.join('|')}))`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/jest.setup.cjs'],
};
module.exports = {
  // Integration tests wait for rounds to settle on the devnet; a hang still fails them.
  testTimeout: 120_000,
  // No forceExit: jest ends a worker that something still holds open and says so ("A worker
  // process has failed to exit gracefully"); scripts/test-summary.mjs reports that line and
  // fails `make test` on a log after a test ended. `jest --runInBand --detectOpenHandles`
  // shows where a handle was opened.
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{libs,services,tools,apps}/*/src/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/{libs,services,tools}/*/test/**/*.test.ts', '<rootDir>/test-e2e/**/*.test.ts'],
    },
  ],
};
