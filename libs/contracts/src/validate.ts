import { InputError } from '@gridlab/errors';
import Ajv, { type ErrorObject, type SchemaObject, type ValidateFunction } from 'ajv';
import { isDateTime } from './date-time';

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
ajv.addFormat('date-time', { type: 'string', validate: isDateTime });

/** A compiled check that returns the typed value or throws InputError listing every problem. */
export type Validator<T> = (data: unknown) => T;

/** Registers a schema so others can `$ref` it by `$id`. */
export function addSchema(schema: SchemaObject): void {
  if (schema.$id === undefined || ajv.getSchema(schema.$id) === undefined) ajv.addSchema(schema);
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
export function compileValidator<T>(schema: SchemaObject, what: string): Validator<T> {
  let compiled: ValidateFunction<T> | undefined;
  return (data) => {
    const check: ValidateFunction<T> = (compiled ??= (schema.$id !== undefined && ajv.getSchema<T>(schema.$id)) || ajv.compile<T>(schema));
    if (check(data)) return data;
    const errors = (check.errors ?? []).map(describe);
    throw new InputError(`invalid ${what}: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`, { errors });
  };
}
