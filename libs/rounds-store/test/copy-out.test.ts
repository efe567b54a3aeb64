import { createPool } from '@gridlab/db';
import { syntheticRounds } from '@gridlab/testing';
import { to as copyTo } from 'pg-copy-streams';
import { REPLAY_COLUMNS } from '../src';
import { copyOut } from '../src/copy-out';
import { storeFixture, type StoreFixture } from './helpers';

describe('copyOut against PostgreSQL', () => {
  let f: StoreFixture;
  beforeAll(async () => {
    f = await storeFixture();
    await f.repo.insertMany(syntheticRounds(3000, { seed: 8, firstId: 1, payoutRule: (i) => (i % 3 === 0 ? 'returns' : 'parimutuel') }));
  });
  afterAll(() => f.close());

  const sql = `COPY (SELECT ${REPLAY_COLUMNS} FROM indexer.rounds ORDER BY id) TO STDOUT (FORMAT binary)`;

  it('reads exactly the bytes pg-copy-streams reads, and the connection serves the next query', async () => {
    const client = await f.pool.connect();
    try {
      const expected: Buffer[] = [];
      const reference = client.query(copyTo(sql)) as ReturnType<typeof copyTo> & { callback?: (error: Error | null) => void };
      for await (const chunk of reference as AsyncIterable<Buffer>) expected.push(chunk);
      // pg-copy-streams never calls back: disarm the pool's query_timeout as rounds-store used to.
      reference.callback?.(null);
      const got: Buffer[] = [];
      await copyOut(client, sql, (chunk, start, end) => got.push(Buffer.from(chunk.subarray(start, end))));
      expect(Buffer.concat(got).equals(Buffer.concat(expected))).toBe(true);
      expect(Buffer.concat(got).length).toBeGreaterThan(3000 * 300);
      expect((await client.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      client.release();
    }
  });

  it('fails with the backend’s error, mid-COPY too, and the connection still serves the next query', async () => {
    const client = await f.pool.connect();
    try {
      await expect(copyOut(client, 'COPY (SELECT * FROM indexer.no_such_table) TO STDOUT', () => undefined)).rejects.toThrow(/no_such_table/);
      let rows = 0;
      // The error comes after rows have been sent.
      await expect(copyOut(client, 'COPY (SELECT 10 / (1000 - g) FROM generate_series(1, 2000) g) TO STDOUT', () => rows++)).rejects.toThrow(/division by zero/);
      expect(rows).toBeGreaterThan(0);
      expect((await client.query<{ n: number }>('SELECT 2 AS n')).rows).toEqual([{ n: 2 }]);
    } finally {
      client.release();
    }
  });

  it('ends a COPY that outlasts its timeout', async () => {
    const pool = createPool(f.db.url, { max: 1 });
    const client = await pool.connect();
    try {
      await expect(copyOut(client, 'COPY (SELECT pg_sleep(5)) TO STDOUT', () => undefined, { timeoutMs: 200 })).rejects.toThrow(/timeout/);
    } finally {
      client.release(true);
      await pool.end();
    }
  });
});
