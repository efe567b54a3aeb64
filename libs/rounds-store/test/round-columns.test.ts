import { createPool } from '@gridlab/db';
import { syntheticRounds } from '@gridlab/testing';
import { OutOfOrder, RoundColumnsReader, type ColumnRound, type RoundColumnSink } from '../src';
import { storeFixture, type StoreFixture } from './helpers';

/** Collects the ids a load appends, with the order check the history applies. */
function idSink(): RoundColumnSink & { ids: number[] } {
  const ids: number[] = [];
  return {
    ids,
    get lastId() {
      return ids.length === 0 ? null : ids[ids.length - 1]!;
    },
    append(round: ColumnRound) {
      ids.push(round.id);
    },
  };
}

describe('RoundColumnsReader (binary COPY of the replay columns)', () => {
  let f: StoreFixture;
  beforeEach(async () => {
    f = await storeFixture();
  });
  afterEach(() => f.close());

  it('loads the table in storage order up to the given id, skipping rows stored after it, and leaves the connection as it found it', async () => {
    await f.repo.insertMany(syntheticRounds(50, { seed: 3, firstId: 1 }));
    // One connection: the session setting the load changes must be reset on it.
    const pool = createPool(f.db.url, { max: 1 });
    try {
      const reader = new RoundColumnsReader(pool);
      const sink = idSink();
      expect(await reader.copyAllInStorageOrder(sink, 40)).toBe(40);
      expect(sink.ids).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect((await pool.query<{ synchronize_seqscans: string }>('SHOW synchronize_seqscans')).rows[0]!.synchronize_seqscans).toBe('on');
    } finally {
      await pool.end();
    }
  });

  it('refuses a table not stored in id order, which copyRange then reads in key order', async () => {
    await f.repo.insertMany(syntheticRounds(20, { seed: 4, firstId: 100 }));
    // An older round stored after newer ones (a backfill) sits after them on disk.
    await f.repo.insertMany(syntheticRounds(5, { seed: 5, firstId: 10 }));
    const reader = new RoundColumnsReader(f.pool);
    await expect(reader.copyAllInStorageOrder(idSink(), 119)).rejects.toThrow(OutOfOrder);
    const sink = idSink();
    expect(await reader.copyRange(sink, null, 119)).toBe(25);
    expect(sink.ids).toEqual([...Array.from({ length: 5 }, (_, i) => i + 10), ...Array.from({ length: 20 }, (_, i) => i + 100)]);
  });
});
