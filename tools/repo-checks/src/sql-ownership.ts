/**
 * Who may spell SQL that names a schema: the schema's store lib and the service that owns
 * it. Every other package reads through read-only functions the store lib exports
 * (docs/architecture.md "Data ownership"). dependency-cruiser sees imports, not SQL, so
 * this rule is checked here, over the source text.
 */
const SCHEMA_OWNERS: Readonly<Record<string, readonly string[]>> = {
  // The miner ledger's tables are the indexer schema's too (migrated with it), read and written through libs/miners-store.
  indexer: ['libs/rounds-store', 'libs/miners-store', 'services/indexer'],
  billing: ['libs/billing-store', 'services/billing'],
  lab: ['libs/lab-store', 'services/lab-forward'],
  events: ['libs/events-store', 'services/event-log'],
};

const SQL_REFERENCE = new RegExp(`\\b(?:from|join|into|update|table|copy|exists|truncate)\\s+\\(?\\s*(${Object.keys(SCHEMA_OWNERS).join('|')})\\.([a-z_]+)`, 'gi');

export interface ForeignSql {
  readonly file: string;
  readonly line: number;
  readonly table: string;
}

/** The references in `source` (of `file`, a path from the repository root) to a schema its package does not own. */
export function foreignSql(file: string, source: string): ForeignSql[] {
  const found: ForeignSql[] = [];
  for (const m of source.matchAll(SQL_REFERENCE)) {
    const schema = m[1]!.toLowerCase();
    if (SCHEMA_OWNERS[schema]!.some((owner) => file.startsWith(`${owner}/`))) continue;
    found.push({ file, line: source.slice(0, m.index).split('\n').length, table: `${schema}.${m[2]!}` });
  }
  return found;
}
