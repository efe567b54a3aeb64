import { readFile } from 'node:fs/promises';
import { createPool, runMigrations } from '@gridlab/db';
import { MinerLedgerWriter } from '@gridlab/miners-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import type { Command } from 'commander';
import { loadCliConfig } from '../config';

const LINE = /^(\d{4}-\d{2}-\d{2})\s*,\s*(\d+)\s*$/;

/** `day,lamportsPerOre` lines (a header line and blank lines are skipped); throws naming the first bad line. */
export function parseOrePrices(text: string): { day: string; lamportsPerOre: number }[] {
  const prices: { day: string; lamportsPerOre: number }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || (i === 0 && /^day\s*,/i.test(line))) return;
    const m = LINE.exec(line);
    const lamports = m === null ? NaN : Number(m[2]);
    if (m === null || !Number.isSafeInteger(lamports) || Number.isNaN(Date.parse(`${m[1]}T00:00:00Z`))) {
      throw new Error(`line ${i + 1}: expected YYYY-MM-DD,<lamports per ORE>, got ${JSON.stringify(raw)}`);
    }
    prices.push({ day: m[1]!, lamportsPerOre: lamports });
  });
  return prices;
}

/** `gridlab admin ore-prices <file>`: the ORE price series the miner ledger values ORE at. */
export function registerOrePrices(admin: Command): void {
  admin
    .command('ore-prices')
    .description(
      "set the ORE price of UTC days for the miner ledger (lamports per whole ORE; a CSV of day,lamportsPerOre lines, - for stdin): the ORE of rounds written from then on is valued at its day's price instead of the round's production cost",
    )
    .argument('<file>', 'CSV file, or - for standard input')
    .action(async (file: string) => {
      const text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
      const prices = parseOrePrices(text);
      const config = loadCliConfig();
      await runMigrations({ databaseUrl: config.DATABASE_URL, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
      const pool = createPool(config.DATABASE_URL, { max: 1, applicationName: 'gridlab-cli' });
      try {
        await new MinerLedgerWriter(pool).setOrePrices(prices);
      } finally {
        await pool.end();
      }
      process.stdout.write(`${JSON.stringify({ days: prices.length })}\n`);
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
