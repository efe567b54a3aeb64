/**
 * `pnpm -s generate`: writes services/api-gateway/openapi/openapi.yaml (all but its info and
 * servers: paths from the operation table, schemas from the contracts), the schemas of
 * docs/asyncapi.yaml from @gridlab/contracts, and the client's table of operations
 * (libs/client/src/generated/operations.ts). With `--check`, writes nothing and exits 1
 * when a file is not what the contracts make it (documents.test.ts runs that check).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CLIENT_OPERATIONS_PATH, CLIENT_SCHEMAS_PATH, clientOperationsText, clientSchemasText } from './client-operations';
import { ASYNCAPI_PATH, OPENAPI_PATH, asyncApiText, openApiText } from './documents';

const check = process.argv.includes('--check');
let stale = 0;
for (const [path, make] of [
  [OPENAPI_PATH, openApiText],
  [ASYNCAPI_PATH, asyncApiText],
  [CLIENT_OPERATIONS_PATH, clientOperationsText],
  [CLIENT_SCHEMAS_PATH, clientSchemasText],
] as const) {
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const wanted = make(current);
  if (wanted === current) continue;
  stale++;
  if (check) process.stderr.write(`${relative(process.cwd(), path)} is stale: run pnpm -s generate\n`);
  else {
    writeFileSync(path, wanted);
    process.stdout.write(`wrote ${relative(process.cwd(), path)}\n`);
  }
}
process.exit(check && stale > 0 ? 1 : 0);
