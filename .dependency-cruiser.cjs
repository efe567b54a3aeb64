// The architecture's boundaries, checked by dependency-cruiser on every `make test`
// (tools/repo-checks/src/boundaries.test.ts runs it, and proves each rule fails on a
// deliberate violation). docs/architecture.md describes the layers these rules keep.

/** Modules that do I/O: pure code (the strategy engine, every domain/) imports none of them. */
const IO_CORE = '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dgram|dns|child_process|cluster|worker_threads|readline)$';
const IO_PACKAGES = 'node_modules/(pg|pg-copy-streams|ioredis|express|ws|@nats-io/[a-z-]+|@solana/web3[.]js|@solana/spl-token|prom-client|node-pg-migrate)/';
const IO_LIBS = '^libs/(db|bus|runtime|platform|key-cache|rounds-store|miners-store|billing-store|lab-store|events-store|alerts-store|testing|devnet|webhooks)/';
const TESTS = '(\\.test\\.ts$|/test/|/src/testing/)';
/**
 * What a service's app/ reaches only through its ports: PostgreSQL, Redis and NATS clients
 * (and the workspace's wrappers of them), and the store libraries, whose code is their SQL.
 */
const APP_IO = ['node_modules/(pg|pg-copy-streams|ioredis|@nats-io/[a-z-]+)/', '^libs/(db|bus|rounds-store|miners-store|billing-store|lab-store|events-store|alerts-store)/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-service-to-service',
      comment: 'Services never import each other: they talk over NATS and own their data.',
      severity: 'error',
      from: { path: '^services/([^/]+)/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'no-lib-to-service',
      comment: 'Libraries are shared building blocks; they never reach into a service.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^services/' },
    },
    {
      name: 'dashboard-through-the-client',
      comment: 'A browser app reaches the suite through the public API only: @gridlab/client, never a service or a server-side lib.',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '^(services/|libs/(?!client/))' },
    },
    {
      name: 'no-app-to-adapters',
      comment: "A service's app/ declares the ports it needs; adapters/ implement them and main.ts wires them.",
      severity: 'error',
      from: { path: '^services/([^/]+)/src/app/' },
      to: { path: '^services/$1/src/adapters/' },
    },
    {
      name: 'app-through-ports',
      comment:
        "A service's app/ does I/O only through the ports it declares (app/ports.ts): no database, Redis or NATS client, no store library's code; a store's row types may be named (type-only imports are erased).",
      severity: 'error',
      from: { path: '^services/[^/]+/src/app/', pathNot: TESTS },
      to: { path: APP_IO, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pure-domain',
      comment: 'The strategy engine and every domain/ are pure: no I/O module, no adapter, no I/O library.',
      severity: 'error',
      from: { path: '^(libs/strategy/src/|services/[^/]+/src/domain/)', pathNot: TESTS },
      to: { path: [IO_PACKAGES, '^services/[^/]+/src/(adapters|app|http)/'] },
    },
    {
      name: 'pure-domain-libs',
      comment: "Pure code runs no I/O library's code; it may name a store's row types (type-only imports are erased).",
      severity: 'error',
      from: { path: '^(libs/strategy/src/|services/[^/]+/src/domain/)', pathNot: TESTS },
      to: { path: IO_LIBS, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'pure-domain-core',
      comment: 'The strategy engine and every domain/ use no I/O module of Node.',
      severity: 'error',
      from: { path: '^(libs/strategy/src/|services/[^/]+/src/domain/)', pathNot: TESTS },
      to: { dependencyTypes: ['core'], path: IO_CORE },
    },
    {
      name: 'declared-dependencies',
      comment: 'Every package declares what it imports in its own package.json.',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-unknown', 'npm-no-pkg'], dependencyTypesNot: ['npm', 'npm-dev', 'npm-peer', 'npm-optional'] },
    },
    {
      name: 'no-dev-dependency-in-production-code',
      comment: 'Production code imports only dependencies, not devDependencies.',
      severity: 'error',
      from: { path: '^(libs|services|tools|apps)/[^/]+/src/', pathNot: TESTS },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['npm', 'npm-peer', 'npm-optional'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(libs|services|tools|apps)/[^/]+/dist/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
    reporterOptions: {
      archi: { collapsePattern: '^(libs|services|tools|apps)/[^/]+' },
    },
  },
};
