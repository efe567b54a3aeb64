import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** Where the OpenAPI document lives in the repository (generated as YAML by tools/api-docs). */
const OPENAPI_PATH = join(__dirname, '..', '..', 'openapi', 'openapi.yaml');

/** The OpenAPI 3.1 document, parsed, and its JSON bytes for GET /api/v1/openapi.json. */
export function loadOpenApi(): { document: Record<string, unknown>; json: Buffer } {
  const document = parse(readFileSync(OPENAPI_PATH, 'utf8')) as Record<string, unknown>;
  return { document, json: Buffer.from(JSON.stringify(document)) };
}

let json: Buffer | undefined;

/** The document's JSON bytes, read once. */
export function openApiJson(): Buffer {
  return (json ??= loadOpenApi().json);
}
