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

  it('imports dump pages: one page per file, an array of pages, pretty-printed, and one page per line', async () => {
    const files = {
      single: JSON.stringify(page(rounds.slice(0, 500))),
      array: JSON.stringify([page(rounds.slice(500, 900)), page(rounds.slice(900, 1000))]),
      pretty: JSON.stringify(page(rounds.slice(1000, 1500)), null, 2),
      lines: ndjson([page(rounds.slice(1500, 2000)), page(rounds.slice(2000))]),
    };
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

  it('stops at the first invalid round naming its line, having stored only whole batches before it', async () => {
    const file = join(dir, 'bad.ndjson');
    const lines = rounds.slice(0, 30).map((r) => JSON.stringify(r));
    lines[20] = JSON.stringify({ ...rounds[20], deployed: rounds[20]!.deployed.slice(1) });
    await writeFile(file, lines.join('\n'));
    await expect(importRounds([file], f.repo, { batchSize: 10 })).rejects.toThrow(/bad\.ndjson:21.*\/deployed/);
    expect(await f.repo.count()).toBe(20);
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
