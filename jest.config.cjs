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
  // process has failed to exit gracefully"); scripts/test-summary.mjs fails `make test` on
  // that line and on a log after a test ended. `jest --runInBand --detectOpenHandles` shows
  // where a handle was opened.
  // Jest's default grace is 500 ms from asking a worker to end to seeing it exit, and an
  // integration worker (700-800 MB resident by then) takes 150 ms to be reaped after its
  // last line of JavaScript on a quiet 2-core machine and over 300 ms with one core busy:
  // under load jest forced out workers that held nothing. A real hold never ends, so 5 s
  // still catches it.
  workerGracefulExitTimeout: 5_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{libs,services,tools,apps}/*/src/**/*.test.ts'],
    },
    {
      ...common,
      displayName: 'integration',
      globalSetup: '<rootDir>/scripts/jest-global-setup.cjs',
      testMatch: ['<rootDir>/{libs,services,tools}/*/test/**/*.test.ts', '<rootDir>/test-e2e/**/*.test.ts'],
    },
  ],
};
