import { Type, type Static, type TSchema, type TUnsafe } from '@sinclair/typebox';

// Every wire shape is a TypeBox schema: the same object is the JSON Schema ajv checks,
// the TypeScript type (`Static<typeof schema>`) and, through scripts/generate-documents.ts,
// the OpenAPI and AsyncAPI components. These helpers keep the schemas in the forms the
// documents and ajv already use, where TypeBox's own would change them.

export { Type, type Static, type TSchema };

/**
 * `schema` or null, as a JSON Schema type list (`type: ['integer', 'null']`) rather than
 * TypeBox's `anyOf`: one type check instead of two branches, and the plain form readers
 * of the documents expect.
 */
export function nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, enum: values, ...rest } = schema as unknown as { type: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({ ...rest, type: [type, 'null'], ...(values === undefined ? {} : { enum: [...values, null] }) });
}

/** One of the given strings, as `{ type: 'string', enum }` (TypeBox's literal union is an anyOf of consts). */
export function literals<const V extends readonly string[]>(values: V, options: { description?: string } = {}): TUnsafe<V[number]> {
  return Type.Unsafe<V[number]>({ type: 'string', enum: [...values], ...options });
}

/** `schema` with a description for the documents (the same JSON Schema otherwise). */
export function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}
