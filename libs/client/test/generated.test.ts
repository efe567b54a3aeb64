/**
 * The generated types match the OpenAPI document. (The build as published, packed and
 * imported by a consumer, is tested by readme.test.ts, which runs the README's examples on it.)
 * After changing a contract or services/api-gateway/openapi/openapi.yaml: `pnpm -s generate`.
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

describe('@gridlab/client generated types', () => {
  it('has types generated from the current OpenAPI document (else run `pnpm -s generate`)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gridlab-client-gen-'));
    try {
      const fresh = join(dir, 'openapi.ts');
      await run(join(PACKAGE, 'node_modules/.bin/openapi-typescript'), [SPEC, '-o', fresh], { cwd: PACKAGE });
      expect(await readFile(GENERATED, 'utf8')).toBe(await readFile(fresh, 'utf8'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
