import { GridlabClient } from '@gridlab/client';
import { InputError } from '@gridlab/errors';
import Table from 'cli-table3';
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';

/** The API the commands talk to: --api, else GRIDLAB_API_URL, else the local suite. */
export const DEFAULT_API = process.env['GRIDLAB_API_URL'] ?? 'http://127.0.0.1:8080';

export interface ApiOptions {
  readonly api: string;
  readonly key?: string;
  readonly json?: boolean;
}

/** Adds --api, --key and --json to a command that calls the API. */
export function apiOptions(command: Command, withKey = true): Command {
  command.option('--api <url>', 'Gridlab API base URL (GRIDLAB_API_URL)', DEFAULT_API).option('--json', 'print JSON instead of a table', false);
  if (withKey) command.option('--key <apiKey>', 'API key (GRIDLAB_API_KEY)', process.env['GRIDLAB_API_KEY']);
  return command;
}

/** A client for the command's --api and --key. */
export function clientFor(opts: ApiOptions, needsKey = true): GridlabClient {
  if (needsKey && (opts.key === undefined || opts.key === '')) throw new InputError('an API key is required: --key or GRIDLAB_API_KEY');
  return new GridlabClient({ baseUrl: opts.api, ...(opts.key === undefined || opts.key === '' ? {} : { apiKey: opts.key }) });
}

/** A JSON file given on the command line. */
export function readJsonFile(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputError(`${what} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** A non-negative integer option. */
export function roundIdOption(value: string): number {
  if (!/^\d+$/.test(value)) throw new InputError(`${value} is not a round id`);
  return Number(value);
}

/** Prints `value` as JSON, or `rows` as a two-column table. */
export function print(opts: { json?: boolean }, value: unknown, rows: () => Array<[string, unknown]>): void {
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
    return;
  }
  const table = new Table({ style: tableStyle() });
  for (const [name, v] of rows()) table.push({ [name]: formatValue(v) });
  process.stdout.write(`${table.toString()}\n`);
}

/** Prints `value` as JSON, or `rows` under `head` as a table. */
export function printTable(opts: { json?: boolean }, value: unknown, head: string[], rows: unknown[][]): void {
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(value)}\n`);
    return;
  }
  const table = new Table({ head, style: tableStyle() });
  for (const row of rows) table.push(row.map(formatValue));
  process.stdout.write(`${table.toString()}\n`);
}

/** Colours only on a terminal: piped output stays plain text. */
const tableStyle = (): { head: string[]; border: string[] } | Record<string, never> => (process.stdout.isTTY ? {} : { head: [], border: [] });

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(Math.abs(v) >= 100 ? 2 : 4);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
