/**
 * The generated parts of the OpenAPI document, from the operation table of
 * @gridlab/contracts (`API`): paths, tags, security, the shared responses and the schemas
 * the operations reach. Nothing here names an operation or a schema: adding an operation
 * to the table is all it takes to document it.
 */
import {
  ACCESS_SCHEMES,
  API_OPERATIONS,
  API_TAGS,
  RATE_LIMIT_HEADERS,
  SHARED_RESPONSES,
  impliedResponses,
  isPublished,
  liveSnapshotSchema,
  type ApiResponse,
  type Content,
  type OperationSpec,
  type ResponseHeader,
  type TSchema,
} from '@gridlab/contracts';
import { dslSchema } from '@gridlab/strategy';
import { schemaWriter, type Schema, type SchemaWriter } from './schemas';

/**
 * Components no operation reaches but the document still carries: the detailed DSL (the
 * contracts carry it as any object, as the bus does) and LiveSnapshot, the bus's shape
 * that LiveView extends (the client names its type).
 */
const ALSO_DOCUMENTED: Record<string, TSchema | Schema> = { StrategyDsl: dslSchema, LiveSnapshot: liveSnapshotSchema };

export interface OpenApiParts {
  readonly security: unknown;
  readonly tags: unknown;
  readonly paths: Record<string, Record<string, unknown>>;
  readonly securitySchemes: unknown;
  readonly rateLimitHeaders: unknown;
  readonly responses: Record<string, unknown>;
  readonly schemas: Record<string, Schema>;
}

/** Every body and response of the table, for the schemas they name. */
function contentsOf(op: OperationSpec): Content[] {
  const responses = Object.values(impliedResponses(op)).flatMap((r) => Object.values(r.content ?? {}));
  return [...(op.body === undefined ? [] : [op.body]), ...responses];
}

/** The named schemas the table's bodies and responses use, by public name. */
function namedSchemas(): Record<string, TSchema | Schema> {
  const named: Record<string, TSchema | Schema> = { ...ALSO_DOCUMENTED };
  const contents = [...SHARED_RESPONSES.flatMap((r) => Object.values(r.content ?? {})), ...API_OPERATIONS.flatMap(contentsOf)];
  for (const content of contents) {
    if (isPublished(content)) named[content.name] ??= content.schema;
    else if (typeof content.$id === 'string') named[content.$id] ??= content;
  }
  return named;
}

function schemaOf(writer: SchemaWriter, content: Content): unknown {
  if (isPublished(content)) return { $ref: `#/components/schemas/${content.name}` };
  if (typeof content.$id === 'string') return { $ref: writer.ref(content.$id) };
  return writer.plain(content);
}

function responseOf(writer: SchemaWriter, response: ApiResponse, shared: boolean): unknown {
  if (response.component !== undefined && !shared) return { $ref: `#/components/responses/${response.component}` };
  const headers = response.headers === undefined ? {} : { headers: mapValues(response.headers, (h) => headerOf(writer, h)) };
  const content = response.content === undefined ? {} : { content: mapValues(response.content, (c) => ({ schema: schemaOf(writer, c) })) };
  return { description: response.description, ...headers, ...content };
}

function headerOf(writer: SchemaWriter, header: ResponseHeader): unknown {
  return { ...(header.description === undefined ? {} : { description: header.description }), schema: writer.plain(header.schema) };
}

/** The parameters in `where` of an object schema: each property one parameter, its description lifted out of the schema. */
function parametersOf(writer: SchemaWriter, where: 'path' | 'query' | 'header', object: TSchema | undefined): unknown[] {
  if (object === undefined) return [];
  const required = new Set((object['required'] as string[] | undefined) ?? []);
  return Object.entries(object['properties'] as Record<string, TSchema>).map(([name, schema]) => {
    const { description, ...rest } = schema as TSchema & { description?: string };
    return {
      name,
      in: where,
      ...(where === 'path' || required.has(name) ? { required: true } : {}),
      ...(description === undefined ? {} : { description }),
      schema: writer.plain(rest),
    };
  });
}

function operationOf(writer: SchemaWriter, op: OperationSpec & { operationId: string }): Record<string, unknown> {
  const parameters = [...parametersOf(writer, 'query', op.parameters?.query), ...parametersOf(writer, 'header', op.parameters?.header)];
  const implied = impliedResponses(op);
  const statuses = Object.keys(implied).map(Number).sort((a, b) => a - b);
  const scheme = op.access === 'public' ? undefined : ACCESS_SCHEMES[op.access].name;
  return {
    summary: op.summary,
    ...(op.description === undefined ? {} : { description: op.description }),
    operationId: op.operationId,
    tags: [...op.tags],
    // Paid operations take the document's default (the Bearer key).
    ...(scheme === ACCESS_SCHEMES.paid.name ? {} : { security: scheme === undefined ? [] : [{ [scheme]: [] }] }),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(op.body === undefined ? {} : { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(writer, op.body) } } } }),
    responses: Object.fromEntries(statuses.map((s) => [String(s), responseOf(writer, implied[s]!, false)])),
  };
}

/** The generated parts of the document. */
export function openApiParts(): OpenApiParts {
  const writer = schemaWriter(namedSchemas());
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of API_OPERATIONS) {
    const item = (paths[op.path] ??= {});
    if (item[op.method] !== undefined) throw new Error(`${op.method.toUpperCase()} ${op.path} is declared twice`);
    // Path parameters belong to the path: every operation on it shares them.
    const pathParameters = parametersOf(writer, 'path', op.parameters?.path);
    if (pathParameters.length > 0) {
      if (item['parameters'] !== undefined && JSON.stringify(item['parameters']) !== JSON.stringify(pathParameters)) {
        throw new Error(`the operations on ${op.path} declare different path parameters`);
      }
      item['parameters'] = pathParameters;
    }
    item[op.method] = operationOf(writer, op);
  }
  for (const [path, item] of Object.entries(paths)) {
    const declared = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const described = ((item['parameters'] as { name: string }[] | undefined) ?? []).map((p) => p.name).sort();
    if (JSON.stringify(declared) !== JSON.stringify(described)) throw new Error(`${path}: its path parameters are ${declared.join(', ')}, its operations declare ${described.join(', ')}`);
  }
  const responses = Object.fromEntries(SHARED_RESPONSES.map((r) => [r.component!, responseOf(writer, r, true)]));
  const all = writer.components();
  // By name: adding an operation never moves the others' schemas.
  const schemas = Object.fromEntries(Object.keys(all).sort().map((name) => [name, all[name]!]));
  return {
    security: [{ [ACCESS_SCHEMES.paid.name]: [] }],
    tags: API_TAGS.map((t) => ({ ...t })),
    paths,
    securitySchemes: Object.fromEntries(Object.values(ACCESS_SCHEMES).map((s) => [s.name, s.scheme])),
    rateLimitHeaders: mapValues(RATE_LIMIT_HEADERS, (h) => headerOf(writer, h)),
    responses,
    schemas,
  };
}

function mapValues<V, W>(record: Readonly<Record<string, V>>, f: (v: V) => W): Record<string, W> {
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, f(v)]));
}
