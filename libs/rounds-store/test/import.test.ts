import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { syntheticRounds } from '@gridlab/testing';
import { importRounds } from '../src';
import { storeFixture, type StoreFixture } from './helpers';

const rounds = syntheticRounds(2500, { seed: 11, firstId: 50 });
const ndjson = (items: readonly unknown[]): string => items.map((r) => JSON.stringify(r)).join('\n') + '\n';
const page = (items: typeof rounds) => ({
  count: items.length,
  from: items[0]!.id,
  to: items[items.length - 1]!.id,
  hasMore: false,
  nextFrom: null,
  rounds: items,
});

describe('importRounds', () => {
  let f: StoreFixture;
  let dir: string;
  beforeEach(async () => {
    f = await storeFixture();
    dir = await mkdtemp(join(tmpdir(), 'gridlab-import-'));
  });
  afterEach(async () => {
    await f.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('imports NDJSON rounds that read back equal, and a second import inserts nothing', async () => {
    const file = join(dir, 'rounds.ndjson');
    await writeFile(file, ndjson(rounds));
    const first = await importRounds([file], f.repo, { batchSize: 700 });
    expect(first).toMatchObject({ read: 2500, inserted: 2500, duplicates: 0, invalid: 0 });
    expect(await f.repo.getRounds({ limit: 10_000 })).toEqual(rounds);
    const again = await importRounds([file], f.repo);
    expect(again).toMatchObject({ read: 2500, inserted: 0, duplicates: 2500 });
  });

  it('imports canonical and other lines alike, in any order, keeping the first of a repeated id', async () => {
    const some = rounds.slice(0, 300);
    const lines = some.map((r, i) => (i % 3 === 0 ? JSON.stringify(r, null, 1).replace(/\n/g, '') : JSON.stringify(r)));
    const repeated = { ...some[100]!, totalMiners: some[100]!.totalMiners + 1 };
    const file = join(dir, 'mixed-shapes.ndjson');
    await writeFile(file, [...lines.slice(150), JSON.stringify(repeated), ...lines.slice(0, 150)].join('\n') + '\n');
    expect(await importRounds([file], f.repo, { batchSize: 1000 })).toMatchObject({ read: 301, inserted: 300, duplicates: 1 });
    const stored = await f.repo.getRounds({ limit: 1000 });
    expect(stored).toEqual(some.map((r) => (r.id === repeated.id ? repeated : r)));
  });

  it('refuses a batch size that is not a whole number from 1 to 100,000, before reading anything', async () => {
    const file = join(dir, 'rounds.ndjson');
    await writeFile(file, ndjson(rounds.slice(0, 10)));
    for (const batchSize of [0, -5, 2.5, Number.NaN, 100_001]) {
      await expect(importRounds([file], f.repo, { batchSize })).rejects.toThrow(/batch size must be a whole number from 1 to 100,000/);
    }
    expect((await f.repo.aggregates()).roundsIndexed).toBe(0);
  });

  it('imports rounds of both payout rules with their ORE fields, and old dumps without them', async () => {
    const mixed = syntheticRounds(600, { seed: 12, firstId: 5000, payoutRule: (i) => (i < 300 ? 'parimutuel' : 'returns') });
    const file = join(dir, 'mixed.ndjson');
    await writeFile(file, ndjson(mixed));
    expect(await importRounds([file], f.repo)).toMatchObject({ read: 600, inserted: 600, invalid: 0 });
    expect(await f.repo.getRounds({ fromId: 5000, limit: 1000 })).toEqual(mixed);
    expect((await f.repo.aggregates()).byRule.returns.rounds).toBe(mixed.filter((r) => r.payoutRule === 'returns' && r.winningSquare !== null).length);

    // A dump written before rounds kept their motherlode pool: each reads back with none.
    const beforePool = syntheticRounds(50, { seed: 14, firstId: 6000, payoutRule: 'returns' });
    const poolFile = join(dir, 'before-pool.ndjson');
    await writeFile(poolFile, ndjson(beforePool.map(({ motherlodePool: _m, ...old }) => old)));
    expect(await importRounds([poolFile], f.repo)).toMatchObject({ read: 50, inserted: 50, invalid: 0 });
    expect(await f.repo.getRounds({ fromId: 6000, limit: 1000 })).toEqual(beforePool.map((r) => ({ ...r, motherlodePool: null })));

    // A dump written before rounds carried a rule: the fields are absent. Each round's
    // totals decide: the parimutuel ones stay parimutuel, the returns ones are recognised.
    const legacy = syntheticRounds(200, { seed: 13, firstId: 7000, payoutRule: (i) => (i < 150 ? 'parimutuel' : 'returns') }).map(
      ({ payoutRule: _r, oreReward: _o, topMiner: _t, split: _s, productionCost: _p, ...old }) => old,
    );
    const oldFile = join(dir, 'old.ndjson');
    await writeFile(oldFile, ndjson(legacy));
    expect(await importRounds([oldFile], f.repo)).toMatchObject({ read: 200, inserted: 200, invalid: 0 });
    const stored = await f.repo.getRounds({ fromId: 7000, limit: 1000 });
    expect(stored.slice(0, 150).every((r) => r.payoutRule === 'parimutuel' && r.oreReward === null)).toBe(true);
    expect(stored.slice(150).filter((r) => r.winningSquare !== null).every((r) => r.payoutRule === 'returns')).toBe(true);

    // ORE fields without a rule are refused, naming the line.
    const partial = join(dir, 'partial.ndjson');
    await writeFile(partial, ndjson([{ ...legacy[0], id: 9000, oreReward: 5 }]));
    await expect(importRounds([partial], f.repo)).rejects.toThrow(/partial\.ndjson:1.*payoutRule/);
  });

  it('imports dump pages: one page per file (a line longer than the read buffer), an array of pages, pretty-printed, and one page per line', async () => {
    const files = {
      single: JSON.stringify(page(rounds.slice(0, 1600))),
      array: JSON.stringify([page(rounds.slice(1600, 1800)), page(rounds.slice(1800, 1900))]),
      pretty: JSON.stringify(page(rounds.slice(1900, 2200)), null, 2),
      lines: ndjson([page(rounds.slice(2200, 2350)), page(rounds.slice(2350))]),
    };
    // One line longer than the importer's 1 MiB read buffer, with no newline at its end.
    expect(files.single.length).toBeGreaterThan(1 << 20);
    const paths = [];
    for (const [name, text] of Object.entries(files)) {
      const path = join(dir, `${name}.json`);
      await writeFile(path, text);
      paths.push(path);
    }
    const summary = await importRounds(paths, f.repo);
    expect(summary).toMatchObject({ read: 2500, inserted: 2500 });
    expect(await f.repo.getRounds({ limit: 10_000 })).toEqual(rounds);
  });

  it('stores a leap second as the first second of the next minute (as PostgreSQL reads it), not as a garbage time', async () => {
    const file = join(dir, 'leap.ndjson');
    const leap = { ...rounds[0]!, settledAt: '2016-12-31T23:59:60.000Z' };
    await writeFile(file, JSON.stringify(leap));
    expect(await importRounds([file], f.repo)).toMatchObject({ read: 1, inserted: 1 });
    expect(await f.repo.getRounds({ limit: 10 })).toEqual([{ ...leap, settledAt: '2017-01-01T00:00:00.000Z' }]);
  });

  it('stops at the first invalid round naming its line, having stored only whole batches before it', async () => {
    const file = join(dir, 'bad.ndjson');
    const lines = rounds.slice(0, 30).map((r) => JSON.stringify(r));
    lines[20] = JSON.stringify({ ...rounds[20], deployed: rounds[20]!.deployed.slice(1) });
    await writeFile(file, lines.join('\n'));
    await expect(importRounds([file], f.repo, { batchSize: 10 })).rejects.toThrow(/bad\.ndjson:21.*\/deployed/);
    // Batches of 1 (the first is a tenth of the size), then 10: rounds 1-11 are stored, and
    // the batch of rounds 12-21 is not.
    expect(await f.repo.count()).toBe(11);
  });

  it('skips and counts invalid rounds and broken lines with skipInvalid', async () => {
    const file = join(dir, 'mixed.ndjson');
    const lines = rounds.slice(0, 30).map((r) => JSON.stringify(r));
    lines[3] = '{"id": 1, broken';
    lines[7] = JSON.stringify({ ...rounds[7], totalDeployed: 2 ** 53 });
    await writeFile(file, lines.join('\n'));
    const skipped: string[] = [];
    const summary = await importRounds([file], f.repo, { skipInvalid: true, onInvalid: (where) => skipped.push(where) });
    expect(summary).toMatchObject({ read: 30, inserted: 28, invalid: 2 });
    expect(skipped).toEqual([expect.stringContaining('mixed.ndjson:4'), expect.stringContaining('mixed.ndjson:8')]);
  });
});
