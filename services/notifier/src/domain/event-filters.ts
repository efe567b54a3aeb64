/**
 * Filters of an `event` rule: conditions on the fields of one event-log kind. The fields
 * and what they hold are read from the event log's own schema (`logEventSchema` of
 * @gridlab/contracts), so a field added to a kind is filterable without a change here;
 * the comparisons are the Strategy DSL's (`FILTER_OPS` of @gridlab/strategy), the one
 * filter grammar the API already has. GET /events itself filters by kind only.
 */
import { logEventSchema, type EventKind, type LogEvent } from '@gridlab/contracts';
import type { FieldError } from '@gridlab/errors';
import { FILTER_OPS, MAX_FILTERS, type FilterOp } from '@gridlab/strategy';

/** `field op value`: a number compared any way, or an enumerated string compared with `==`. */
export interface EventFilter {
  readonly field: string;
  readonly op: FilterOp;
  readonly value: number | string;
}

/** A filterable field: numeric, or one of a fixed set of strings. */
type FieldSpec = { readonly numeric: true } | { readonly numeric: false; readonly values: readonly string[] };

interface BranchSchema {
  readonly properties: Readonly<Record<string, { readonly type?: string | readonly string[]; readonly enum?: readonly unknown[]; readonly const?: unknown }>>;
}

/** What the log assigns to every event (and the discriminator): not filterable. */
const HEAD = new Set(['id', 'ts', 'kind']);

/** Each kind's filterable fields, from the schema's branches. */
const FIELDS: ReadonlyMap<EventKind, ReadonlyMap<string, FieldSpec>> = new Map(
  ((logEventSchema as unknown as { oneOf: readonly BranchSchema[] }).oneOf).map((branch) => {
    const fields = new Map<string, FieldSpec>();
    for (const [name, schema] of Object.entries(branch.properties)) {
      if (HEAD.has(name)) continue;
      const types = Array.isArray(schema.type) ? schema.type : [schema.type];
      if (types.includes('integer') || types.includes('number')) fields.set(name, { numeric: true });
      else if (schema.enum !== undefined) fields.set(name, { numeric: false, values: schema.enum.filter((v): v is string => typeof v === 'string') });
    }
    return [branch.properties['kind']!.const as EventKind, fields];
  }),
);

/** The fields a filter of `kind` may name. */
export function filterableFields(kind: EventKind): readonly string[] {
  return [...(FIELDS.get(kind)?.keys() ?? [])];
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` read as the filters of a `kind` rule, with every problem found (paths under `at`). */
export function eventFilterProblems(kind: EventKind, value: unknown, at: string): { readonly filters: EventFilter[]; readonly problems: FieldError[] } {
  const problems: FieldError[] = [];
  const fields = FIELDS.get(kind) ?? new Map<string, FieldSpec>();
  const names = [...fields.keys()].join(', ');
  if (!Array.isArray(value) || value.length > MAX_FILTERS) {
    return { filters: [], problems: [{ path: at, message: `must be a list of at most ${MAX_FILTERS} filters { field, op, value }` }] };
  }
  const filters: EventFilter[] = [];
  value.forEach((item: unknown, i) => {
    const path = `${at}/${i}`;
    if (!isObject(item)) {
      problems.push({ path, message: 'must be an object { field, op, value }' });
      return;
    }
    const extra = Object.keys(item).filter((k) => k !== 'field' && k !== 'op' && k !== 'value');
    for (const k of extra) problems.push({ path: `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, message: 'is not a field of a filter (allowed: field, op, value)' });
    const spec = typeof item['field'] === 'string' ? fields.get(item['field']) : undefined;
    if (spec === undefined) {
      problems.push({ path: `${path}/field`, message: names === '' ? `'${kind}' events have no field to filter on` : `must be a field of '${kind}' events: ${names}` });
      return;
    }
    const op = item['op'];
    const v = item['value'];
    if (spec.numeric) {
      if (typeof op !== 'string' || !(FILTER_OPS as readonly string[]).includes(op)) problems.push({ path: `${path}/op`, message: `must be one of ${FILTER_OPS.join(' ')}` });
      if (typeof v !== 'number' || !Number.isFinite(v)) problems.push({ path: `${path}/value`, message: 'must be a number' });
    } else {
      if (op !== '==') problems.push({ path: `${path}/op`, message: `must be == (${String(item['field'])} is one of ${spec.values.join(', ')})` });
      if (typeof v !== 'string' || !spec.values.includes(v)) problems.push({ path: `${path}/value`, message: `must be one of ${spec.values.join(', ')}` });
    }
    filters.push({ field: item['field'] as string, op: op as FilterOp, value: v as number | string });
  });
  return { filters, problems };
}

/**
 * Whether `event` passes every filter. A field that is null on the event (big_round's
 * totalMiners of a partly known round) fails every comparison, as a filter metric without
 * enough history fails in the Strategy Lab.
 */
export function passesFilters(event: LogEvent, filters: readonly EventFilter[]): boolean {
  const fields = event as unknown as Readonly<Record<string, unknown>>;
  return filters.every((f) => compare(fields[f.field], f.op, f.value));
}

function compare(actual: unknown, op: FilterOp, expected: number | string): boolean {
  if (typeof expected === 'string') return actual === expected;
  if (typeof actual !== 'number') return false;
  switch (op) {
    case '<':
      return actual < expected;
    case '<=':
      return actual <= expected;
    case '>':
      return actual > expected;
    case '>=':
      return actual >= expected;
    case '==':
      return actual === expected;
  }
}
