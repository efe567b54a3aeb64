import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createPool, runMigrations } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, importRounds } from '@gridlab/rounds-store';
import { createTestDatabase, syntheticRounds } from '@gridlab/testing';
import { percentile } from './stats';
import type { Bench } from './types';

const ROUNDS = 200_000;
const RUNS = 3;
const TARGET = 100_000;

/**
 * Import throughput: NDJSON file → parse and validation (worker thread) → binary COPY
 * into a fresh database. Two cores are shared by the parser, the writer and PostgreSQL,
 * so single runs scatter by ±15%: the figure is the median of three runs.
 */
const bench: Bench = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'gridlab-bench-import-'));
  const file = join(dir, 'history.ndjson');
  const out = createWriteStream(file);
  const chunk = 10_000;
  for (let first = 1; first <= ROUNDS; first += chunk) {
    const lines = syntheticRounds(chunk, { seed: first, firstId: first }).map((r) => JSON.stringify(r));
    if (!out.write(lines.join('\n') + '\n')) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  try {
    const rates: number[] = [];
    for (let run = 0; run < RUNS; run++) rates.push(await importOnce(file));
    const median = percentile(rates, 50);
    return [
      {
        key: 'import.roundsPerSecond',
        label: `import ${ROUNDS.toLocaleString('en')} rounds (NDJSON → COPY), median of ${RUNS}`,
        value: median,
        unit: 'rounds/s',
        target: `>= ${TARGET}`,
        met: median >= TARGET,
      },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

async function importOnce(file: string): Promise<number> {
  const db = await createTestDatabase();
  try {
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    const pool = createPool(db.url, { max: 2 });
    try {
      const summary = await importRounds([file], new RoundRepository(pool));
      if (summary.inserted !== ROUNDS) throw new Error(`imported ${summary.inserted} of ${ROUNDS} rounds`);
      return summary.roundsPerSecond;
    } finally {
      await pool.end();
    }
  } finally {
    await db.drop();
  }
}

export default bench;
