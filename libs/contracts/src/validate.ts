import { InputError } from '@gridlab/errors';
import type { Static, TSchema } from '@sinclair/typebox';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { isDateTime } from './date-time';

// `discriminator`: a log event is checked against its own kind's fields only.
const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, discriminator: true });
ajv.addFormat('date-time', { type: 'string', validate: isDateTime });

/** A compiled check that returns the typed value or throws InputError listing every problem. */
export type Validator<T> = (data: unknown) => T;

/** Registers named schemas so others can `$ref` them by `$id` (registering compiles nothing). */
export function addSchemas(schemas: readonly TSchema[]): void {
  for (const schema of schemas) if (schema.$id !== undefined && ajv.getSchema(schema.$id) === undefined) ajv.addSchema(schema);
}

/** One ajv error as `{ path, message }`; an unknown property is named in the path. */
function describe(e: ErrorObject): { path: string; message: string } {
  if (e.keyword === 'additionalProperties') {
    return { path: `${e.instancePath}/${String(e.params['additionalProperty'])}`, message: 'is not an accepted property' };
  }
  if (e.keyword === 'required') return { path: `${e.instancePath}/${String(e.params['missingProperty'])}`, message: 'is required' };
  return { path: e.instancePath || '/', message: e.message ?? 'is invalid' };
}

/**
 * A validator of `schema`. It compiles on first use: a process loads every contract but
 * checks a few, and compiled validators cost memory in every thread that loads them
 * (contracts.test.ts compiles them all, so a broken schema still fails the build).
 */
export function compileValidator<S extends TSchema>(schema: S, what: string): Validator<Static<S>> {
  type T = Static<S>;
  let compiled: ValidateFunction<T> | undefined;
  const validator: Validator<T> = (data) => {
    const check: ValidateFunction<T> = (compiled ??= (schema.$id !== undefined && ajv.getSchema<T>(schema.$id)) || ajv.compile<T>(schema));
    if (check(data)) return data;
    const errors = (check.errors ?? []).map(describe);
    throw new InputError(`invalid ${what}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
  };
  if (!first.has(schema)) first.set(schema, validator);
  return validator;
}

/** The first validator made of each schema: every check of a schema is the same function. */
const first = new WeakMap<TSchema, Validator<unknown>>();

/**
 * The validator of `schema`, made once: its errors call it `what`, by default its `$id`
 * in words (`SubscribeStartRequest` → "subscribe start request").
 */
export function validatorOf<S extends TSchema>(schema: S, what: string = words(schema.$id ?? 'value')): Validator<Static<S>> {
  return (first.get(schema) as Validator<Static<S>> | undefined) ?? compileValidator(schema, what);
}

function words(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}
