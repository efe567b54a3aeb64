import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Round } from '@gridlab/contracts';
import { createPool, runMigrations } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, ROUND_COLUMNS, RoundRepository, encodeCopyBinary, importRounds } from '@gridlab/rounds-store';
import { from as copyFrom } from 'pg-copy-streams';
import { createTestDatabase, syntheticRounds } from '@gridlab/testing';
import { percentile } from './stats';
import type { Bench } from './types';

const ROUNDS = 200_000;
const RUNS = 3;
/** At least this many rounds per second (the 2-core machine). */
const TARGET = 150_000;
/** Import ≥ this share of what PostgreSQL ingests by binary COPY alone. */
const RATIO_TARGET = 0.5;
/** Rounds per COPY of the baseline, as the import writes them. */
const COPY_BATCH = 10_000;

/**
 * Import throughput: NDJSON file → parse and validation → binary COPY
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
    // Baselines measured in the same run, alternating with the import: JSON.parse of the
    // file alone, and the same rounds pre-encoded as binary COPY (no parsing, no
    // validation, no aggregates): PostgreSQL's own ingest limit on this machine.
    const text = await readFile(file, 'utf8');
    const parseRates: number[] = [];
    const copyRates: number[] = [];
    const rates: number[] = [];
    let rounds: Round[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      rounds = text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Round);
      parseRates.push(rounds.length / ((performance.now() - started) / 1000));
      copyRates.push(await copyOnlyOnce(rounds));
      rates.push(await importOnce(file));
    }
    const median = percentile(rates, 50);
    const copyOnly = percentile(copyRates, 50);
    const ratio = median / copyOnly;
    return [
      {
        key: 'import.roundsPerSecond',
        label: `import ${ROUNDS.toLocaleString('en')} rounds (NDJSON → COPY), median of ${RUNS}`,
        value: median,
        unit: 'rounds/s',
        target: `>= ${TARGET}`,
        met: median >= TARGET,
      },
      { key: 'import.baseline.copyOnly', label: 'baseline: the same rounds as pre-encoded binary COPY only, median', value: Math.round(copyOnly), unit: 'rounds/s' },
      { key: 'import.baseline.jsonParse', label: 'baseline: JSON.parse of the file alone, median', value: Math.round(percentile(parseRates, 50)), unit: 'rounds/s' },
      { key: 'import.ratioToCopyOnly', label: 'import ÷ binary COPY only', value: ratio, unit: 'ratio', target: `>= ${RATIO_TARGET}`, met: ratio >= RATIO_TARGET },
    ];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** Rounds per second of binary COPY FROM STDIN of pre-encoded batches into a fresh indexer.rounds. */
async function copyOnlyOnce(rounds: readonly Round[]): Promise<number> {
  const batches: Buffer[] = [];
  for (let i = 0; i < rounds.length; i += COPY_BATCH) batches.push(encodeCopyBinary(rounds.slice(i, i + COPY_BATCH)));
  const db = await createTestDatabase();
  try {
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    const pool = createPool(db.url, { max: 1 });
    const client = await pool.connect();
    try {
      const sql = `COPY indexer.rounds (${ROUND_COLUMNS.join(', ')}) FROM STDIN (FORMAT binary)`;
      const started = performance.now();
      for (const batch of batches) await pipeline(Readable.from([batch]), client.query(copyFrom(sql)));
      return rounds.length / ((performance.now() - started) / 1000);
    } finally {
      client.release();
      await pool.end();
    }
  } finally {
    await db.drop();
  }
}

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
