/**
 * The generated types match the OpenAPI document, and the package builds for npm.
 * After changing services/api-gateway/openapi/openapi.yaml: `pnpm -s --filter @gridlab/client generate`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const PACKAGE = join(__dirname, '..');
const SPEC = join(PACKAGE, '../../services/api-gateway/openapi/openapi.yaml');
const GENERATED = join(PACKAGE, 'src/generated/openapi.ts');

describe('@gridlab/client packaging', () => {
  it('has types generated from the current OpenAPI document (else run `pnpm -s --filter @gridlab/client generate`)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gridlab-client-gen-'));
    try {
      const fresh = join(dir, 'openapi.ts');
      await run(join(PACKAGE, 'node_modules/.bin/openapi-typescript'), [SPEC, '-o', fresh], { cwd: PACKAGE });
      expect(await readFile(GENERATED, 'utf8')).toBe(await readFile(fresh, 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('builds ESM with declarations that Node imports as published', async () => {
    // The workspace's TypeScript (hoisted to the root), run by this Node.
    await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: PACKAGE });
    await run('node', ['scripts/mark-esm.mjs'], { cwd: PACKAGE });
    const declarations = await readFile(join(PACKAGE, 'dist/client.d.ts'), 'utf8');
    expect(declarations).not.toMatch(/from '\.\/[^']+\.ts'/);
    const { stdout } = await run('node', ['--input-type=module', '-e', "const m = await import('./dist/index.js'); console.log(typeof m.GridlabClient, typeof m.GridlabApiError)"], { cwd: PACKAGE });
    expect(stdout.trim()).toBe('function function');
  });
});
