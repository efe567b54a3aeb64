import { InputError } from '@gridlab/errors';

/**
 * An optional integer query parameter within [min, max]; anything else (fractions,
 * words, repeats, out of range) is a 400 naming the parameter.
 */
export function intParam(value: unknown, name: string, fallback: number | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^-?\d{1,16}$/.test(value)) {
    throw new InputError(`${name} must be an integer between ${min} and ${max}`, { errors: [{ path: `/query/${name}`, message: 'must be an integer' }] });
  }
  const n = Number(value);
  if (n < min || n > max) {
    throw new InputError(`${name} must be an integer between ${min} and ${max}`, { errors: [{ path: `/query/${name}`, message: `must be between ${min} and ${max}` }] });
  }
  return n;
}
