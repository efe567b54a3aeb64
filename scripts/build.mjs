// The production build: every service and tool bundled by esbuild into one CommonJS file,
// `<package>/dist/main.js`, with the workspace's own packages (@gridlab/*) compiled in and
// npm packages left as imports (installed by scripts/deploy-service.sh). Files a package
// reads at run time keep their repository paths under `dist/assets/` (migrations, the
// OpenAPI document, the dashboard, lab-backtest's worker): every `__dirname` in a bundled
// source is rewritten to that source's directory under `dist/assets/`.
//   node scripts/build.mjs            builds everything
//   node scripts/build.mjs indexer    builds the named packages only
//   node scripts/build.mjs --local    the same bundles for this checkout, as `make start` and
//                                     the tests run them: `.gridlab/build/<package>/main.js`
//                                     (GRIDLAB_BUILD_DIR elsewhere), npm imports required by
//                                     their installed paths here, each `__dirname` the
//                                     source's own directory (nothing copied), plus `suite`,
//                                     the local suite runner itself
// Benches import `bundle` and `npmFromCheckout` to compile the engine as production does (bench/lab-process.ts).
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Each package: its entry points (name → source) and the repository files it reads at run time. */
const TARGETS = {
  indexer: { dir: 'services/indexer', assets: ['libs/rounds-store/migrations'] },
  'api-gateway': { dir: 'services/api-gateway', assets: ['services/api-gateway/openapi', 'apps/web/dist'] },
  billing: { dir: 'services/billing', assets: ['libs/billing-store/migrations'] },
  'event-log': { dir: 'services/event-log', assets: ['libs/events-store/migrations'] },
  'lab-forward': { dir: 'services/lab-forward', assets: ['libs/lab-store/migrations'] },
  notifier: { dir: 'services/notifier', assets: ['libs/alerts-store/migrations'] },
  'lab-backtest': {
    dir: 'services/lab-backtest',
    assets: [],
    // The worker threads' code, where compute-pool.ts looks for it (beside itself).
    extra: { 'assets/services/lab-backtest/src/adapters/workers/compute.worker': 'services/lab-backtest/src/adapters/workers/compute.worker.ts' },
  },
  cli: { dir: 'tools/cli', assets: ['libs/rounds-store/migrations', 'libs/billing-store/migrations', 'libs/events-store/migrations', 'libs/lab-store/migrations'] },
  // The ORE program's executables and accounts its real-program mode runs (tools/devnet/src/real/install.ts).
  devnet: { dir: 'tools/devnet', assets: ['fixtures/mainnet/program-2025-12', 'fixtures/mainnet/program-2026-04'] },
};
/** Built by --local only: what `make start` runs. */
const LOCAL_ONLY = { suite: { dir: 'deploy/local', entry: 'deploy/local/run-suite.ts', assets: [] } };

/** Where --local builds go. */
export const LOCAL_BUILD_DIR = process.env.GRIDLAB_BUILD_DIR ?? join(ROOT, '.gridlab', 'build');

/**
 * npm packages stay imports; the workspace's packages are compiled into the bundle, and so
 * is TypeBox: bundled from its ES modules, only the schema builders the contracts call
 * are kept, where loading the package loads all of it (about 6 MB of resident memory in
 * every thread that imports the contracts: each lab-backtest worker, too).
 */
const BUNDLED_NPM = ['@sinclair/typebox'];

/** The plugin leaving npm imports external, each required by `requirePath(import, importer's directory)`. */
function externalNpmAs(name, requirePath) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@gridlab/') || args.path.startsWith('node:') || BUNDLED_NPM.some((p) => args.path === p || args.path.startsWith(`${p}/`))) return undefined;
        return { path: requirePath(args.path, args.resolveDir), external: true };
      });
    },
  };
}

/** As an image installs them: by name, from the deployed package's node_modules. */
const externalNpm = externalNpmAs('external-npm', (path) => path);

/**
 * By the path they are installed at in this checkout: a --local build, or a bench's
 * bundle, runs from it with no production install beside it.
 */
export const npmFromCheckout = externalNpmAs('npm-from-checkout', (path, dir) => createRequire(join(dir, 'x.js')).resolve(path));

/**
 * `__dirname` of each bundled source becomes that source's directory under dist/assets/,
 * or with `local`, the source's own directory in this checkout (a source beside an extra
 * entry point, the directory that entry is built to).
 */
function assetDirnames(outdir, local, extraDirs = new Map()) {
  return {
    name: 'asset-dirnames',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (!source.includes('__dirname') || args.path.includes('node_modules')) return undefined;
        const dir = dirname(args.path);
        const path = local
          ? JSON.stringify(extraDirs.get(dir) ?? dir)
          : `require('node:path').join(__dirname, ${JSON.stringify(relative(outdir, join(outdir, 'assets', relative(ROOT, dir))))})`;
        return { contents: `const __assetDirname = ${path};\n${source.replaceAll('__dirname', '__assetDirname')}`, loader: 'ts' };
      });
    },
  };
}


/**
 * Bundles `entryPoints` (output name → source file) into `outdir` as the production build
 * does. `plugins` run before the build's own (`npmFromCheckout` for a bundle run from the
 * checkout); `local` maps each `__dirname` to the checkout (see assetDirnames).
 */
export async function bundle(entryPoints, outdir, plugins = [], local = undefined) {
  await build({
    entryPoints,
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Maps give stack traces their TypeScript file and line (`node --enable-source-maps`);
    // without the sources' text in them, the image holds no source code.
    sourcemap: true,
    sourcesContent: false,
    logLevel: 'warning',
    plugins: [...plugins, externalNpm, assetDirnames(outdir, local !== undefined, local?.extraDirs)],
  });
}

async function buildTarget(name) {
  const target = TARGETS[name];
  if (target === undefined) throw new Error(`unknown package ${name}; one of: ${Object.keys(TARGETS).join(', ')}`);
  const outdir = join(ROOT, target.dir, 'dist');
  rmSync(outdir, { recursive: true, force: true });
  const entryPoints = { main: join(ROOT, target.dir, 'src/main.ts') };
  for (const [out, src] of Object.entries(target.extra ?? {})) entryPoints[out] = join(ROOT, src);
  await bundle(entryPoints, outdir);
  for (const asset of target.assets) {
    const from = join(ROOT, asset);
    if (!existsSync(from)) throw new Error(`${name}: ${asset} is missing (build the dashboard first: pnpm build:web)`);
    mkdirSync(dirname(join(outdir, 'assets', asset)), { recursive: true });
    cpSync(from, join(outdir, 'assets', asset), { recursive: true });
  }
  process.stdout.write(`built ${target.dir}/dist\n`);
}

/**
 * Every package (and the suite runner) built for this checkout into `into` (default
 * LOCAL_BUILD_DIR), all at once; the build replaces the previous one only when complete,
 * so a process starting meanwhile finds one whole build or the other.
 */
export async function buildLocal(into = LOCAL_BUILD_DIR) {
  const staging = `${into}.${process.pid}.tmp`;
  rmSync(staging, { recursive: true, force: true });
  const targets = { ...TARGETS, ...LOCAL_ONLY };
  await Promise.all(
    Object.entries(targets).map(async ([name, target]) => {
      const outdir = join(staging, name);
      const entryPoints = { main: join(ROOT, target.entry ?? join(target.dir, 'src/main.ts')) };
      const extraDirs = new Map();
      for (const [out, src] of Object.entries(target.extra ?? {})) {
        const built = out.replace(/^assets\//, '');
        entryPoints[built] = join(ROOT, src);
        extraDirs.set(dirname(join(ROOT, src)), dirname(join(into, name, built)));
      }
      await bundle(entryPoints, outdir, [npmFromCheckout], { extraDirs });
    }),
  );
  const old = `${into}.${process.pid}.old`;
  try {
    if (existsSync(into)) renameSync(into, old);
    renameSync(staging, into);
  } catch (error) {
    // Another build of the same sources (a second test run in this checkout) swapped first: use its.
    if (!existsSync(into)) throw error;
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--local')) {
    await buildLocal();
  } else {
    for (const name of args.length > 0 ? args : Object.keys(TARGETS)) await buildTarget(name);
  }
}
