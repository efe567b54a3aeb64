import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createPool, runMigrations } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository, importRounds } from '@gridlab/rounds-store';
import { createTestDatabase, syntheticRounds } from '@gridlab/testing';
import type { Bench } from './types';

const ROUNDS = 200_000;
const TARGET = 100_000;

/** Import throughput: NDJSON file → validation → binary COPY into a fresh database. */
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
  const db = await createTestDatabase();
  try {
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    const pool = createPool(db.url, { max: 2 });
    try {
      const summary = await importRounds([file], new RoundRepository(pool));
      if (summary.inserted !== ROUNDS) throw new Error(`imported ${summary.inserted} of ${ROUNDS} rounds`);
      return [
        {
          key: 'import.roundsPerSecond',
          label: `import ${ROUNDS.toLocaleString('en')} rounds (NDJSON → COPY)`,
          value: summary.roundsPerSecond,
          unit: 'rounds/s',
          target: `>= ${TARGET}`,
          met: summary.roundsPerSecond >= TARGET,
        },
      ];
    } finally {
      await pool.end();
    }
  } finally {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  }
};

export default bench;
