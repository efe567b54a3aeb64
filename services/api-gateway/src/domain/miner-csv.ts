import { minerRoundSchema, type MinerRound } from '@gridlab/contracts';

/** The CSV columns: MinerRound's fields in the schema's order. */
export const MINER_CSV_COLUMNS = Object.keys(minerRoundSchema.properties) as (keyof MinerRound)[];

/** RFC 4180 line break. */
const EOL = '\r\n';
const NEEDS_QUOTES = /[",\r\n]/;

/** A field as RFC 4180 writes it: quoted (inner quotes doubled) only when it holds a comma, quote or line break. */
function field(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A value as a CSV field: null empty, a list `;`-separated, anything else as JSON writes it (strings unquoted). */
function cell(value: MinerRound[keyof MinerRound]): string {
  if (value === null) return '';
  if (Array.isArray(value)) return value.join(';');
  return field(String(value));
}

/** The header line. */
export function minerCsvHeader(): string {
  return MINER_CSV_COLUMNS.join(',') + EOL;
}

/** One row as a CSV line (with its line break). */
export function minerCsvRow(row: MinerRound): string {
  return MINER_CSV_COLUMNS.map((column) => cell(row[column])).join(',') + EOL;
}
