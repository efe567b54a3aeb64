/**
 * Schemas as the documents show them: plain JSON Schema without `$id`, keys in a reading
 * order, each `$ref` pointing at the component of the schema it names.
 */
import * as contracts from '@gridlab/contracts';

export type Schema = Record<string, unknown>;

/** Keys first in this order (what a reader looks for first), the rest as the schema has them. */
const KEY_ORDER = [
  '$ref',
  'type',
  'const',
  'enum',
  'format',
  'pattern',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'description',
];

/** Writes schemas into a document: plain JSON Schema whose `$ref`s point at its components. */
export interface SchemaWriter {
  /** `schema` as the document shows it (`top`: a component itself, whose `$id` goes). */
  plain(schema: unknown, top?: boolean): unknown;
  /** The reference to the component of the schema with this `$id` (or component name). */
  ref(id: string): string;
  /** Every component written so far: the named ones and those their references reach. */
  components(): Record<string, Schema>;
}

/**
 * A writer of the components `named` (public name → schema). A schema referenced but not
 * named is added under its `$id`, so every reference resolves.
 */
export function schemaWriter(named: Record<string, contracts.TSchema | Schema>): SchemaWriter {
  const nameOf = new Map<string, string>();
  for (const [name, schema] of Object.entries(named)) {
    const id = schema['$id'];
    if (typeof id === 'string' && !nameOf.has(id)) nameOf.set(id, name);
  }
  const byId = new Map(contracts.NAMED_SCHEMAS.map((s) => [s.$id!, s as Schema]));
  const out: Record<string, Schema> = {};
  const pending = Object.entries(named);
  let written = 0;
  const ref = (id: string): string => {
    let name = nameOf.get(id) ?? (id in named ? id : undefined);
    if (name === undefined) {
      const schema = byId.get(id);
      if (schema === undefined) throw new Error(`a schema refers to ${id}, which no contract defines`);
      name = id;
      nameOf.set(id, name);
      pending.push([name, schema]);
    }
    return `#/components/schemas/${name}`;
  };
  const plain = (value: unknown, top = false): unknown => {
    if (Array.isArray(value)) return value.map((v) => plain(v, false));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Schema).filter(([k]) => !(top && k === '$id'));
    entries.sort(([a], [b]) => rank(a) - rank(b));
    return Object.fromEntries(entries.map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? ref(v) : plain(v, false)]));
  };
  return {
    plain,
    ref,
    components() {
      for (; written < pending.length; written++) {
        const [name, schema] = pending[written]!;
        out[name] = plain(schema, true) as Schema;
      }
      return out;
    },
  };
}

/**
 * The components of a document: each named schema as plain JSON Schema (no `$id`), its
 * `$ref`s pointing into the document, and every schema those reach.
 */
export function components(named: Record<string, contracts.TSchema | Schema>): Record<string, Schema> {
  return schemaWriter(named).components();
}

function rank(key: string): number {
  const i = KEY_ORDER.indexOf(key);
  return i === -1 ? KEY_ORDER.length : i;
}

