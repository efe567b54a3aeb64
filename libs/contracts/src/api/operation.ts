import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { Type } from '../kit';
import { problemSchema } from '../http';

// The shape of one HTTP operation in the table (./index.ts): what the OpenAPI document's
// paths are written from (tools/api-docs) and what the gateway binds its handlers,
// parameter checks, access and rate-limit cost to.

/**
 * Who may call an operation. `public`: anyone, limited per client address. `paid`: a
 * Bearer API key (or, on the dashboard's `/api/live/<path>` mirror, a session cookie),
 * limited per key. `session`: the dashboard's session cookie only, limited per its key.
 */
export type Access = 'public' | 'paid' | 'session';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A schema under the name the documents give it, where that is not its `$id` (the client's type names). */
export interface Published {
  readonly name: string;
  readonly schema: TSchema;
}

/** A body: a named contracts schema (by its `$id` or published name), or an inline schema. */
export type Content = TSchema | Published;

export interface ResponseHeader {
  readonly description?: string;
  readonly schema: TSchema;
}

export interface ApiResponse {
  readonly description: string;
  readonly headers?: Readonly<Record<string, ResponseHeader>>;
  /** Media type → body. */
  readonly content?: Readonly<Record<string, Content>>;
  /** A response shared by many operations: written once under `components.responses` by this name. */
  readonly component?: string;
}

/** Path, query and header parameters, each an object of TypeBox schemas (a query parameter is optional unless required). */
export interface Parameters {
  readonly path?: TObject;
  readonly query?: TObject;
  readonly header?: TObject;
}

export interface OperationSpec {
  readonly method: Method;
  /** The OpenAPI path template (`/api/v1/rounds/{id}`). */
  readonly path: string;
  /** The document's tags; the first names the group. */
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly access: Access;
  /**
   * Rate-limit tokens a request takes, from the key's bucket (`paid`, `session`) or the
   * client address's (`public`); 0: not limited. A stream pays once, at connect.
   */
  readonly cost: number;
  readonly parameters?: Parameters;
  readonly body?: Content;
  /**
   * Status → response: the operation's own answers. The answers its access and
   * parameters imply (401, 402, 429, 400) are added by `impliedResponses`.
   */
  readonly responses: Readonly<Record<number, ApiResponse>>;
}

/** An operation as declared (the identity: it only checks the shape and keeps the literal types). */
export function operation<const T extends OperationSpec>(spec: T): T {
  return spec;
}

/** `schema` named `name` in the documents. */
export function published(name: string, schema: TSchema): Published {
  return { name, schema };
}

export function isPublished(content: Content): content is Published {
  return 'name' in content && 'schema' in content && typeof (content as Published).name === 'string';
}

// --- Parameter values as a handler sees them -----------------------------------------

type PropsOf<T> = T extends TObject<infer P> ? P : Record<never, never>;
/** Names of the properties whose schema carries a default: present once the defaults are applied. */
type Defaulted<P> = { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];
type WithDefaults<T> = T extends TObject ? Static<T> & { [K in Defaulted<PropsOf<T>> & keyof Static<T>]-?: Exclude<Static<T>[K], undefined> } : Record<never, never>;

/** The checked parameters of an operation, its defaults applied. */
export interface ParamValues<Op extends OperationSpec> {
  readonly path: WithDefaults<NonNullable<Op['parameters']>['path']>;
  readonly query: WithDefaults<NonNullable<Op['parameters']>['query']>;
  readonly header: WithDefaults<NonNullable<Op['parameters']>['header']>;
}

/**
 * `schema` with a default the handler can rely on: the type records it, so the checked
 * value is typed as present (`Type.Integer({ default })` alone would not say so).
 */
export function withDefault<S extends TSchema, const V extends Static<S>>(schema: S, value: V): S & { default: V } {
  return { ...schema, default: value };
}

// --- Shared responses ----------------------------------------------------------------

const problemJson = { 'application/problem+json': problemSchema } as const;

/** A problem+json answer with its codes described. */
export function problem(description: string): ApiResponse {
  return { description, content: problemJson };
}

const BAD_REQUEST: ApiResponse = { component: 'BadRequest', ...problem('invalid_request') };
const UNAUTHORIZED: ApiResponse = { component: 'Unauthorized', ...problem('missing_api_key | invalid_api_key (WWW-Authenticate: Bearer)') };
export const PAYMENT_REQUIRED: ApiResponse = { component: 'PaymentRequired', ...problem('subscription_expired') };
const RATE_LIMITED: ApiResponse = {
  component: 'RateLimited',
  ...problem(
    "A limit or cap was hit; `code` names it (Retry-After in whole seconds, RateLimit-* describe it): rate_limited (the key's or address's bucket), too_many_failed_auths (the client address failed authentication too often; refused before any key lookup), too_many_streams / too_many_streams_from_address (concurrent SSE streams per key / per address), too_many_dumps / too_many_dumps_from_address (concurrent NDJSON dumps), too_many_lab_jobs (Strategy Lab requests in flight per key)",
  ),
};
export const UNAVAILABLE: ApiResponse = { component: 'Unavailable', ...problem('service_unavailable (Retry-After)') };
export const TIMEOUT: ApiResponse = { component: 'Timeout', ...problem('timeout: the backing service did not answer in time') };
export const ORIGIN_MISMATCH: ApiResponse = {
  component: 'OriginMismatch',
  ...problem('origin_mismatch: the request did not come from the dashboard page (its Origin, or Sec-Fetch-Site: same-origin)'),
};
const SESSION_REQUIRED: ApiResponse = {
  component: 'SessionRequired',
  ...problem('session_required (no session cookie, or its session expired or was signed out) | invalid_api_key (its key was revoked)'),
};

/** The shared responses, in the order the document lists them. */
export const SHARED_RESPONSES: readonly ApiResponse[] = [BAD_REQUEST, UNAUTHORIZED, PAYMENT_REQUIRED, RATE_LIMITED, UNAVAILABLE, TIMEOUT, ORIGIN_MISMATCH, SESSION_REQUIRED];

/** RateLimit-* (draft-ietf-httpapi-ratelimit-headers): the bucket a request took its tokens from. */
export const RATE_LIMIT_HEADERS: Readonly<Record<string, ResponseHeader>> = {
  'RateLimit-Limit': { schema: Type.Integer() },
  'RateLimit-Remaining': { schema: Type.Integer() },
  'RateLimit-Reset': { schema: Type.Integer() },
};

/**
 * The answers every operation of its kind can give before its handler runs: a bad
 * parameter or body (400), no or a bad key or session (401), a lapsed subscription (402), a
 * spent bucket (429). Its own `responses` come first (a more precise description wins).
 */
export function impliedResponses(op: OperationSpec): Record<number, ApiResponse> {
  const implied: Record<number, ApiResponse> = {};
  const p = op.parameters;
  // A string path parameter takes any value: its handler decides (a malformed strategy id names no strategy, 404).
  const pathChecked = Object.values(p?.path?.properties ?? {}).some((s) => s['type'] !== 'string');
  const checked = pathChecked || [p?.query, p?.header].some((o) => o !== undefined && Object.keys(o.properties).length > 0);
  if (checked || op.body !== undefined) implied[400] = BAD_REQUEST;
  if (op.access === 'paid') Object.assign(implied, { 401: UNAUTHORIZED, 402: PAYMENT_REQUIRED });
  if (op.access === 'session') Object.assign(implied, { 401: SESSION_REQUIRED, 402: PAYMENT_REQUIRED });
  if (op.cost > 0) implied[429] = RATE_LIMITED;
  return { ...implied, ...op.responses };
}
