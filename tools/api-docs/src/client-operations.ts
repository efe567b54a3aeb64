/**
 * The client's table of operations (libs/client/src/generated/operations.ts): each
 * operationId's method, path template, access and the media type of its success answer,
 * from the operation table of @gridlab/contracts. @gridlab/client is published without
 * the contracts, so it carries this copy of what it needs to send a request by operationId.
 */
import { API_OPERATIONS, type OperationSpec } from '@gridlab/contracts';
import { join } from 'node:path';
import { openApiParts } from './openapi';

export const CLIENT_OPERATIONS_PATH = join(__dirname, '..', '..', '..', 'libs/client/src/generated/operations.ts');
export const CLIENT_SCHEMAS_PATH = join(__dirname, '..', '..', '..', 'libs/client/src/generated/schemas.ts');

const HEADER = `/**
 * Generated from the operation table in libs/contracts/src/api by \`pnpm -s generate\`
 * (tools/api-docs): do not edit. Declare operations there.
 */`;

/** The media type of the operation's success answer (its lowest 2xx status, the first type listed); null when it has no body. */
export function successMediaType(op: OperationSpec): string | null {
  const status = Object.keys(op.responses)
    .map(Number)
    .filter((s) => s >= 200 && s < 300)
    .sort((a, b) => a - b)[0];
  if (status === undefined) throw new Error(`${op.method.toUpperCase()} ${op.path} declares no success answer`);
  return Object.keys(op.responses[status]!.content ?? {})[0] ?? null;
}

/** The text of the client's table: one operation a line, in the table's order. */
export function clientOperationsText(): string {
  const lines = API_OPERATIONS.map((op) => {
    const route = { method: op.method, path: op.path, access: op.access, answers: successMediaType(op) };
    const fields = Object.entries(route).map(([name, value]) => `${name}: ${value === null ? 'null' : `'${value}'`}`);
    return `  ${op.operationId}: { ${fields.join(', ')} },`;
  });
  return `${HEADER}
import type { operations } from './openapi.ts';

/** How an operation is sent: what the client needs of the operation table to call it by operationId. */
export interface OperationRoute {
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The OpenAPI path template (\`/api/v1/rounds/{id}\`). */
  readonly path: string;
  /** \`public\`: no key; \`paid\`: the API key (or the dashboard's session); \`session\`: the dashboard's session cookie only. */
  readonly access: 'public' | 'paid' | 'session';
  /** The media type of the success answer (\`text/event-stream\` for a stream); null when it has no body. */
  readonly answers: string | null;
}

/** Every operation of the API by operationId, in the order the OpenAPI document lists them. */
export const OPERATIONS = {
${lines.join('\n')}
} as const satisfies { readonly [Id in keyof operations]: OperationRoute };
`;
}

/** The client's name for every schema of the OpenAPI document: its own name, in the document's order. */
export function clientSchemasText(): string {
  const names = Object.keys(openApiParts().schemas);
  return `${HEADER}
import type { components } from './openapi.ts';

type Schemas = components['schemas'];

${names.map((name) => `export type ${name} = Schemas['${name}'];`).join('\n')}
`;
}
