/**
 * The image recipe: Docker is not available here, so what can be checked without
 * it is checked on the text — every base image pinned by digest, a numeric non-root user,
 * node started directly on the compiled bundle, and a build context that leaves out what
 * is built, installed or local. test-e2e/production-build.test.ts runs what the recipe runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const dockerfile = readFileSync(join(ROOT, 'deploy/docker/Dockerfile'), 'utf8');
const lines = dockerfile.split('\n').filter((l) => !l.startsWith('#') && l.trim() !== '');
const args = Object.fromEntries(lines.filter((l) => l.startsWith('ARG ') && l.includes('=')).map((l) => l.slice(4).split('=', 2) as [string, string]));

describe('deploy/docker/Dockerfile', () => {
  it('pins every base image by digest', () => {
    const bases = lines.filter((l) => l.startsWith('FROM ')).map((l) => l.split(/\s+/)[1]!.replace(/^\$\{(\w+)\}$/, (_, name: string) => args[name] ?? ''));
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const base of bases) expect(base).toMatch(/^[a-z0-9./-]+:[\w.-]+@sha256:[0-9a-f]{64}$/);
  });

  it('runs the compiled bundle with node as a numeric non-root user', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER [1-9]\d*:[1-9]\d*$/m);
    expect(runtime).toMatch(/^CMD \["node", (?:"--[a-z-]+", )*"dist\/main\.js"\]$/m);
    expect(runtime).not.toMatch(/tsx|pnpm install|src\//);
    expect(runtime).toMatch(/COPY --from=build \/out\//);
  });

  it('fetches the dependencies from the lockfile before the sources are copied, so that layer outlives source changes', () => {
    const build = lines.slice(0, lines.map((l) => l.startsWith('FROM ')).lastIndexOf(true));
    const fetch = build.indexOf('RUN pnpm fetch');
    const copyAll = build.indexOf('COPY . .');
    expect(fetch).toBeGreaterThan(0);
    expect(copyAll).toBeGreaterThan(fetch);
    for (const line of build.slice(0, fetch).filter((l) => l.startsWith('COPY '))) expect(line).toMatch(/^COPY (?:package\.json|pnpm-lock\.yaml|pnpm-workspace\.yaml| )+\.\/$/);
  });

  it('builds with the production build and deploy scripts', () => {
    expect(dockerfile).toMatch(/^RUN pnpm install --frozen-lockfile --offline && pnpm build$/m);
    expect(dockerfile).toMatch(/scripts\/deploy-service\.sh "\$\{SERVICE\}" \/out/);
  });
});

describe('pnpm', () => {
  it('is pinned by its sha512 in package.json, and nothing turns corepack\'s integrity check off', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string };
    expect(manifest.packageManager).toMatch(/^pnpm@\d+\.\d+\.\d+\+sha512\.[0-9a-f]{128}$/);
    for (const file of ['deploy/docker/Dockerfile', 'Makefile', 'scripts/ensure-deps.sh', 'scripts/deploy-service.sh', 'scripts/ensure-infra.sh', '.ci/run']) {
      expect({ file, disabled: /COREPACK_INTEGRITY_KEYS\s*[:=]/.test(readFileSync(join(ROOT, file), 'utf8')) }).toEqual({ file, disabled: false });
    }
  });
});

describe('.dockerignore', () => {
  it('leaves out what is built, installed or local', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim());
    for (const entry of ['.git', '**/node_modules', '**/dist', '.gridlab', '**/test', '**/*.test.ts']) expect(ignored).toContain(entry);
  });
});
