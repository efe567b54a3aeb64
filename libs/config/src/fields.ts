/** How one environment variable is parsed; `parse` throws an Error with a reason. */
export interface Field<T> {
  readonly parse: (raw: string) => T;
  readonly default?: T;
  /** Secret values never appear in error messages or logs. */
  readonly secret: boolean;
  readonly doc: string;
}

interface FieldOptions<T> {
  readonly default?: T;
  readonly secret?: boolean;
  readonly doc?: string;
}

function field<T>(parse: (raw: string) => T, options: FieldOptions<T>): Field<T> {
  const base = { parse, secret: options.secret ?? false, doc: options.doc ?? '' };
  return options.default === undefined ? base : { ...base, default: options.default };
}

export function str(options: FieldOptions<string> & { minLength?: number; pattern?: RegExp; format?: string } = {}): Field<string> {
  const min = options.minLength ?? 1;
  return field((raw) => {
    if (raw.length < min) throw new Error(`must be at least ${min} characters`);
    if (options.pattern !== undefined && !options.pattern.test(raw)) throw new Error(`must be ${options.format ?? `like ${options.pattern.source}`}`);
    return raw;
  }, options);
}

export function int(options: FieldOptions<number> & { min?: number; max?: number } = {}): Field<number> {
  return field((raw) => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error('must be an integer');
    const value = Number(raw);
    if (!Number.isSafeInteger(value)) throw new Error('is out of range');
    if (options.min !== undefined && value < options.min) throw new Error(`must be >= ${options.min}`);
    if (options.max !== undefined && value > options.max) throw new Error(`must be <= ${options.max}`);
    return value;
  }, options);
}

export function num(options: FieldOptions<number> & { min?: number; max?: number } = {}): Field<number> {
  return field((raw) => {
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) throw new Error('must be a number');
    if (options.min !== undefined && value < options.min) throw new Error(`must be >= ${options.min}`);
    if (options.max !== undefined && value > options.max) throw new Error(`must be <= ${options.max}`);
    return value;
  }, options);
}

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['0', 'false', 'no', 'off']);

export function bool(options: FieldOptions<boolean> = {}): Field<boolean> {
  return field((raw) => {
    const v = raw.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw new Error('must be true or false');
  }, options);
}

export function oneOf<const T extends string>(values: readonly T[], options: FieldOptions<T> = {}): Field<T> {
  return field((raw) => {
    if (!(values as readonly string[]).includes(raw)) throw new Error(`must be one of ${values.join(', ')}`);
    return raw as T;
  }, options);
}

/** Comma-separated list; empty entries are dropped. */
export function list(options: FieldOptions<readonly string[]> = {}): Field<readonly string[]> {
  return field(
    (raw) =>
      raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    options,
  );
}
