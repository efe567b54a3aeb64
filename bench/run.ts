/**
 * `make bench`: runs every bench/*.bench.ts one after another (each sets up and cleans
 * up its own servers), prints a table and writes bench/results.json. Exits non-zero if
 * a benchmark failed to run (a missed target is reported, not an error).
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import type { Bench, BenchFigure } from './types';

async function main(): Promise<void> {
  const files = readdirSync(__dirname).filter((f) => f.endsWith('.bench.ts')).sort();
  const only = process.argv.slice(2);
  const figures: BenchFigure[] = [];
  const failures: string[] = [];
  for (const file of files) {
    if (only.length > 0 && !only.some((o) => file.includes(o))) continue;
    process.stderr.write(`bench: running ${file}...\n`);
    try {
      const mod = (await import(join(__dirname, file))) as { default: Bench | { default: Bench } };
      const bench = typeof mod.default === 'function' ? mod.default : mod.default.default;
      figures.push(...(await bench()));
    } catch (error) {
      failures.push(file);
      process.stderr.write(`bench: ${file} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  const rows = figures.map((f) => [f.label, formatValue(f.value), f.unit, f.target ?? '', f.met === undefined ? '' : f.met ? 'yes' : 'NO']);
  const header = ['figure', 'value', 'unit', 'target', 'met'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  process.stdout.write(`${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n`);
  const results = {
    machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, date: new Date().toISOString() },
    figures,
    failures,
  };
  writeFileSync(join(__dirname, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nwritten: bench/results.json\n`);
  process.exit(failures.length > 0 ? 1 : 0);
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? value.toLocaleString('en') : value.toFixed(2);
}

void main();
