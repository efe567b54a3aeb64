/**
 * Every package declares exactly what it imports: production code's imports
 * are `dependencies` (or peers), test-only imports may be `devDependencies`, and nothing
 * is declared that no file imports (but the few runtime-only packages listed below).
 * dependency-cruiser checks npm imports against package.json; workspace packages resolve
 * to their sources through symlinks, which it sees as local files, so this test reads the
 * import specifiers itself.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { builtinModules } from 'node:module';

const ROOT = join(__dirname, '..', '..', '..');

/** Declared but never imported by a file, on purpose. */
const RUNTIME_ONLY: Readonly<Record<string, string>> = {
  tsx: 'loads TypeScript: `node --import tsx` for services and worker threads',
  typescript: 'the compiler the build scripts run',
  'openapi-typescript': 'generates libs/client types (its `generate` script)',
  jest: 'the test runner',
  '@swc/core': 'compiles tests for jest',
  '@swc/jest': 'compiles tests for jest',
  'dependency-cruiser': 'checks the boundaries (run as a command)',
  buffer: "apps/web: the browser's Buffer for web3.js (its name is also Node's module, so its import is taken for Node's)",
  '@solana/spl-token': 'apps/web: bundled through @gridlab/client/wallet, whose peer dependency it is',
  'kubernetes-models': 'tools/repo-checks/src/validate-k8s.mjs imports one schema module per kind, by a computed name',
  '@kubernetes-models/prometheus-operator': 'tools/repo-checks/src/validate-k8s.mjs imports the PrometheusRule schema by a computed name',
};

/** Imported by production code only when it runs from sources (development); a devDependency on purpose. */
const SOURCE_ONLY: Readonly<Record<string, string>> = {
  tsx: "lab-backtest's worker runs its TypeScript source through tsx only when no compiled worker sits beside it (scripts/build.mjs)",
};

interface Manifest {
  readonly name: string;
  readonly dependencies?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules' || entry === 'dist') return [];
    if (statSync(path).isDirectory()) return files(path);
    return /\.(ts|tsx|mts|mjs|cjs)$/.test(entry) && !entry.endsWith('.d.ts') ? [path] : [];
  });
}

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\brequire(?:\.resolve)?\(\s*|\bimport\s+)['"]([^'"./][^'"]*)['"]/g;

/** The package names a source imports (`@scope/name/sub` → `@scope/name`), Node's own modules left out. */
function imported(source: string): Set<string> {
  const names = new Set<string>();
  for (const m of source.matchAll(SPECIFIER)) {
    const spec = m[1]!;
    if (spec.startsWith('node:') || !/^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/|$)/.test(spec)) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return names;
}

const BUILTIN = new Set(builtinModules);
const isTest = (file: string): boolean => /\.test\.ts$|\/test\/|\/src\/testing\//.test(file);

const packageDirs = ['libs', 'services', 'tools', 'apps']
  .flatMap((top) => readdirSync(join(ROOT, top)).map((name) => join(ROOT, top, name)))
  .concat([join(ROOT, 'bench'), join(ROOT, 'test-e2e')])
  .filter((dir) => existsSync(join(dir, 'package.json')));

describe('package.json dependencies', () => {
  it.each(packageDirs.map((dir) => [dir.slice(ROOT.length + 1), dir]))('%s declares exactly what it imports', (_, dir) => {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    const deps = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
    const dev = new Set(Object.keys(manifest.devDependencies ?? {}));
    const production = new Set<string>();
    const all = new Set<string>();
    for (const file of files(dir)) {
      const names = [...imported(readFileSync(file, 'utf8'))].filter((n) => !BUILTIN.has(n) && n !== manifest.name);
      for (const n of names) {
        all.add(n);
        // Build scripts and bundler configs run at build time: their imports are devDependencies.
        if (!isTest(file) && !file.startsWith(join(dir, 'scripts')) && !file.endsWith('vite.config.ts')) production.add(n);
      }
    }
    const problems = [
      ...[...production].filter((n) => !deps.has(n) && !(SOURCE_ONLY[n] !== undefined && dev.has(n))).map((n) => `imported by production code but not in dependencies: ${n}`),
      ...[...all].filter((n) => !deps.has(n) && !dev.has(n)).map((n) => `imported but not declared: ${n}`),
      ...[...deps, ...dev].filter((n) => !all.has(n) && !n.startsWith('@types/') && RUNTIME_ONLY[n] === undefined).map((n) => `declared but never imported: ${n}`),
    ];
    expect(problems).toEqual([]);
  });
});
