/**
 * Names for the API's request and response bodies, taken from the types generated from
 * the OpenAPI document (src/generated/openapi.ts, `pnpm --filter @gridlab/client generate`).
 */
import type { OPERATIONS } from './generated/operations.ts';
import type { components, operations, paths } from './generated/openapi.ts';
import type { LogEvent } from './generated/schemas.ts';
import type { CallOptions } from './transport.ts';

export type { components, operations, paths };
// Every schema of the document under its own name (generated with the document).
export type * from './generated/schemas.ts';

export type EventKind = LogEvent['kind'];

// --- Operations by operationId (what the client's methods and request() are typed from) ---

/** An operation of the API, by its operationId in the OpenAPI document. */
export type OperationId = keyof operations;

/** The operations request() calls: all but the two event streams, which stream() and eventStream() read. */
export type RequestOperationId = { [Id in OperationId]: (typeof OPERATIONS)[Id]['answers'] extends 'text/event-stream' ? never : Id }[OperationId];

type ParametersOf<Id extends OperationId> = operations[Id]['parameters'];

/** The path parameters of an operation (`{ id }` for getRound). */
export type OperationPath<Id extends OperationId> = ParametersOf<Id> extends { path: infer P } ? P : never;

/** The query parameters of an operation. */
export type OperationQuery<Id extends OperationId> = ParametersOf<Id> extends { query?: infer Q } ? NonNullable<Q> : never;

/** The header parameters of an operation. */
export type OperationHeaders<Id extends OperationId> = ParametersOf<Id> extends { header?: infer H } ? NonNullable<H> : never;

/** The JSON request body of an operation. */
export type OperationBody<Id extends OperationId> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** The body of an operation's success answer: the JSON of its 200, 201 or 202, undefined for a 204. */
export type OperationAnswer<Id extends OperationId> =
  operations[Id]['responses'] extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : operations[Id]['responses'] extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : operations[Id]['responses'] extends { 202: { content: { 'application/json': infer B } } }
        ? B
        : operations[Id]['responses'] extends { 204: unknown }
          ? undefined
          : never;

/** Each value may be left undefined: it is not sent (`{ from: options.from }` as it comes). */
type Unsent<T> = { [K in keyof T]: T[K] | undefined };

/**
 * What a call of an operation takes: `path` when it has path parameters, `body` when it
 * takes one, `query` and `headers` when it declares any; nothing else.
 */
export type OperationArgs<Id extends OperationId> = ([OperationPath<Id>] extends [never] ? { readonly path?: never } : { readonly path: OperationPath<Id> }) &
  ([OperationQuery<Id>] extends [never]
    ? { readonly query?: never }
    : ParametersOf<Id> extends { query: unknown }
      ? { readonly query: Unsent<OperationQuery<Id>> }
      : { readonly query?: Unsent<OperationQuery<Id>> }) &
  ([OperationHeaders<Id>] extends [never] ? { readonly headers?: never } : { readonly headers?: Unsent<OperationHeaders<Id>> }) &
  ([OperationBody<Id>] extends [never] ? { readonly body?: never } : { readonly body: OperationBody<Id> });

/** request()'s arguments after the operationId: `args` may be left out when nothing in it is required. */
export type RequestArgs<Id extends OperationId> =
  Record<never, never> extends OperationArgs<Id> ? [args?: OperationArgs<Id>, opts?: CallOptions] : [args: OperationArgs<Id>, opts?: CallOptions];

// --- Operations by path template and method ---------------------------------------------

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The methods the document defines for a path. */
export type MethodOf<P extends keyof paths> = { [M in Method]: [Operation<P, M>] extends [never] ? never : M }[Method];

/** The path parameters of an operation (`{ id }` for `/lab/strategies/{id}`). */
export type PathParams<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { path: infer X } } ? NonNullable<X> : never;

/** The JSON body of an operation's success answer (200 or 201). */
export type OkBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? R extends { 200: { content: { 'application/json': infer B } } }
      ? B
      : R extends { 201: { content: { 'application/json': infer B } } }
        ? B
        : never
    : never;

/** The JSON request body of an operation. */
export type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/** The query parameters of an operation. */
export type Query<P extends keyof paths, M extends Method> = Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
