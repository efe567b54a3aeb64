import type { IncomingHttpHeaders } from 'node:http';
import type { OperationSpec, ParamValues, TSchema } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import Ajv, { type ErrorObject } from 'ajv';

// Path, query and header parameters checked against the operation table's schemas: ajv
// compiles each operation's once, at start, and fills in the defaults. A request's values
// are strings; an integer parameter takes a decimal in its one written form (no leading
// zero, no `-0`, no `1e3`, `0x10` or blanks, which ajv's own coercion would accept), so one
// value has one URL, and anything else fails its type.

const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true });
const INTEGER_RE = /^(?:0|-?[1-9]\d{0,15})$/;
const LOCATIONS = ['path', 'query', 'header'] as const;
type Location = (typeof LOCATIONS)[number];

/** Where a request's raw values come from. */
interface RawParameters {
  readonly path?: Readonly<Record<string, string | undefined>>;
  /** Express's parsed query (a repeated name gives a list), or the URL's own. */
  readonly query?: Readonly<Record<string, unknown>> | URLSearchParams;
  readonly headers?: IncomingHttpHeaders;
}

/** Checks a request's parameters: their values, defaults applied, or an InputError naming each bad one (`/query/limit`). */
export type ParameterCheck<Op extends OperationSpec> = (raw: RawParameters) => ParamValues<Op>;

interface Declared {
  readonly where: Location;
  readonly name: string;
  readonly integer: boolean;
  /** What the value must be, in words, for the error. */
  readonly rule: string;
}

/** The rule of a parameter's schema, as an error states it. */
function ruleOf(schema: TSchema): string {
  const s = schema as { type?: unknown; minimum?: number; maximum?: number; enum?: unknown[] };
  if (Array.isArray(s.enum)) return `must be one of ${s.enum.join(', ')}`;
  if (s.type === 'integer') {
    if (s.minimum === 0 && (s.maximum === undefined || s.maximum === Number.MAX_SAFE_INTEGER)) return 'must be a non-negative integer';
    if (s.minimum !== undefined && s.maximum !== undefined) return `must be an integer from ${s.minimum} to ${s.maximum}`;
    return 'must be an integer';
  }
  return `must be a ${String(s.type)}`;
}

function read(raw: RawParameters, where: Location, name: string): unknown {
  if (where === 'path') return raw.path?.[name];
  if (where === 'header') {
    const value = raw.headers?.[name.toLowerCase()];
    const one = Array.isArray(value) ? value[0] : value;
    // An empty header is no header.
    return one === '' ? undefined : one;
  }
  const query = raw.query;
  if (query instanceof URLSearchParams) {
    const values = query.getAll(name);
    return values.length === 0 ? undefined : values.length === 1 ? values[0] : values;
  }
  return query?.[name];
}

/**
 * The check of `op`'s parameters, compiled now; undefined when it declares none (nothing is
 * done per request then). Parameters it does not declare are ignored.
 */
export function compileParameters<Op extends OperationSpec>(op: Op): ParameterCheck<Op> | undefined {
  const declared: Declared[] = [];
  const properties: Record<string, TSchema> = {};
  for (const where of LOCATIONS) {
    const object = op.parameters?.[where];
    if (object === undefined) continue;
    properties[where] = object;
    for (const [name, schema] of Object.entries(object.properties)) {
      declared.push({ where, name, integer: (schema as { type?: unknown }).type === 'integer', rule: ruleOf(schema) });
    }
  }
  if (declared.length === 0) return undefined;
  const validate = ajv.compile({ type: 'object', properties });
  const byPointer = new Map(declared.map((d) => [`/${d.where}/${d.name.replace(/~/g, '~0').replace(/\//g, '~1')}`, d]));
  return (raw) => {
    const values: Record<Location, Record<string, unknown>> = { path: {}, query: {}, header: {} };
    for (const d of declared) {
      const value = read(raw, d.where, d.name);
      if (value === undefined) continue;
      values[d.where][d.name] = d.integer && typeof value === 'string' && INTEGER_RE.test(value) ? Number(value) : value;
    }
    if (validate(values)) return values as unknown as ParamValues<Op>;
    throw invalid(validate.errors ?? [], byPointer);
  };
}

/** One error per bad parameter, in the words of its rule. */
function invalid(errors: readonly ErrorObject[], byPointer: ReadonlyMap<string, Declared>): InputError {
  const seen = new Map<string, { path: string; message: string; name: string }>();
  for (const e of errors) {
    const path = e.keyword === 'required' ? `${e.instancePath}/${String(e.params['missingProperty'])}` : e.instancePath;
    if (seen.has(path)) continue;
    const d = byPointer.get(path);
    seen.set(path, { path, message: e.keyword === 'required' ? 'is required' : (d?.rule ?? e.message ?? 'is invalid'), name: d?.name ?? path });
  }
  const list = [...seen.values()];
  return new InputError(list.map((e) => `${e.name} ${e.message}`).join('; '), { errors: list.map(({ path, message }) => ({ path, message })) });
}
