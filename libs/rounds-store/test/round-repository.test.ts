import { syntheticRounds } from '@gridlab/testing';
import { advanceDroughts, emptyDroughts, sumRounds } from '../src';
import { storeFixture, type StoreFixture } from './helpers';

const history = syntheticRounds(3000, { seed: 7, firstId: 1000, voidedRate: 0.02 });

describe('RoundRepository', () => {
  let f: StoreFixture;
  beforeEach(async () => {
    f = await storeFixture();
  });
  afterEach(() => f.close());

  it('stores N rounds as exactly N rows that read back identical', async () => {
    expect(await f.repo.insertMany(history)).toBe(3000);
    expect(await f.repo.count()).toBe(3000);
    const back = [
      ...(await f.repo.getRounds({ fromId: 1000, toId: 2999 })),
      ...(await f.repo.getRounds({ fromId: 3000, toId: 5000 })),
    ];
    expect(back).toEqual(history);
  });

  it('changes nothing when the same rounds are stored again', async () => {
    await f.repo.insertMany(history);
    const before = await f.repo.aggregates();
    expect(await f.repo.insertMany(history.slice(100, 200))).toBe(0);
    expect(await f.repo.insertSettled(history[5]!)).toBe(false);
    const after = await f.repo.aggregates();
    expect({ ...after, updatedAt: null }).toEqual({ ...before, updatedAt: null });
    expect(await f.repo.count()).toBe(3000);
  });

  it('keeps aggregates equal to a recomputation from the stored rounds', async () => {
    await f.repo.insertMany(history);
    const agg = await f.repo.aggregates();
    const sums = sumRounds(history);
    const droughts = advanceDroughts(emptyDroughts(), history);
    expect(agg).toMatchObject({
      roundsIndexed: 3000,
      voidedRounds: sums.voided,
      firstId: 1000,
      lastId: 3999,
      totalDeployed: sums.totalDeployed,
      totalWinnings: sums.totalWinnings,
      settledDeployed: sums.settledDeployed,
      winnerReturnX100: sums.winnerReturnX100,
    });
    expect(agg.squares.map((s) => s.hits)).toEqual(sums.hits);
    expect(agg.squares.map((s) => s.hits).reduce((a, b) => a + b, 0)).toBe(3000 - sums.voided);
    expect(agg.squares.map((s) => s.deployed)).toEqual(sums.deployedBySquare);
    expect(agg.squares.map(({ lastHitId, currentDrought, maxDrought }) => ({ lastHitId, currentDrought, maxDrought }))).toEqual(
      droughts,
    );
  });

  it('reaches the same aggregates when rounds arrive out of order, one by one or in batches', async () => {
    const inOrder = await storeFixture();
    try {
      await inOrder.repo.insertMany(history);
      const shuffled = [...history.slice(2000), ...history.slice(0, 1000)];
      await f.repo.insertMany(shuffled);
      for (const r of history.slice(1000, 1010).reverse()) await f.repo.insertSettled(r);
      await f.repo.insertMany(history.slice(1010, 2000));
      const a = await f.repo.aggregates();
      const b = await inOrder.repo.aggregates();
      expect({ ...a, updatedAt: null }).toEqual({ ...b, updatedAt: null });
    } finally {
      await inOrder.close();
    }
  });

  it('reports missing ids as ranges and never invents rounds', async () => {
    expect(await f.repo.findGaps()).toEqual([]);
    const holes = history.filter((r) => !(r.id >= 1100 && r.id <= 1149) && r.id !== 2000);
    await f.repo.insertMany(holes);
    expect(await f.repo.findGaps()).toEqual([
      { fromId: 1100, toId: 1149 },
      { fromId: 2000, toId: 2000 },
    ]);
    await f.repo.insertSettled(history.find((r) => r.id === 2000)!);
    expect(await f.repo.findGaps()).toEqual([{ fromId: 1100, toId: 1149 }]);
    expect(await f.repo.count()).toBe(2950);
  });

  it('tells which ids are stored and the latest id', async () => {
    await f.repo.insertMany(history.slice(0, 10));
    expect(await f.repo.latestId()).toBe(1009);
    expect([...(await f.repo.storedIds([999, 1000, 1009, 1010]))].sort()).toEqual([1000, 1009]);
  });
});

describe('RoundRepository reads', () => {
  let f: StoreFixture;
  beforeAll(async () => {
    f = await storeFixture();
    await f.repo.insertMany(history.filter((r) => r.id !== 1500));
  });
  afterAll(() => f.close());

  it('lists the newest rounds first', async () => {
    expect((await f.repo.latest(3)).map((r) => r.id)).toEqual([3999, 3998, 3997]);
  });

  it('finds a round with its nearest stored neighbours, null at both ends, across a gap', async () => {
    expect(await f.repo.findWithNeighbours(1499)).toMatchObject({ prevId: 1498, nextId: 1501 });
    expect(await f.repo.findWithNeighbours(1000)).toMatchObject({ prevId: null, nextId: 1001 });
    expect(await f.repo.findWithNeighbours(3999)).toMatchObject({ prevId: 3998, nextId: null });
    expect((await f.repo.findWithNeighbours(2000))?.round).toEqual(history.find((r) => r.id === 2000));
    expect(await f.repo.findWithNeighbours(1500)).toBeNull();
  });
});

describe('exportRoundsNdjson', () => {
  let f: StoreFixture;
  beforeAll(async () => {
    f = await storeFixture();
    await f.repo.insertMany(history);
  });
  afterAll(() => f.close());

  it('streams exactly JSON.stringify of each stored round in the range, one per line', async () => {
    const { exportRoundsNdjson } = await import('../src');
    const { stream, release } = await exportRoundsNdjson(f.pool, 1500, 2499);
    let text = '';
    try {
      for await (const chunk of stream) text += chunk.toString();
    } finally {
      release();
    }
    const expected = history.filter((r) => r.id >= 1500 && r.id <= 2499).map((r) => `${JSON.stringify(r)}\n`).join('');
    expect(text).toBe(expected);
  });

  it("leaves no armed query timeout behind, and discards a connection abandoned mid-export", async () => {
    const { exportRoundsNdjson } = await import('../src');
    // A pool whose query deadline is short: a finished export must not fail later.
    const pg = (await import('pg')).default;
    const pool = new pg.Pool({ connectionString: f.db.url, max: 1, query_timeout: 300 });
    const errors: Error[] = [];
    const done = await exportRoundsNdjson(pool, 1000, 1100);
    done.stream.on('error', (e: Error) => errors.push(e));
    for await (const _ of done.stream) void _;
    done.release();
    await new Promise((r) => setTimeout(r, 600));
    expect(errors).toEqual([]);
    expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    // A consumer that stops early: the connection is dropped, the pool stays usable and
    // the export's deadline is disarmed (its timer would hold the process for hours);
    // while lines are encoded, and while stored lines stream.
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    // Each pool's idle connection holds an idle timer: make sure the fixture's pool, used
    // below, has one armed already (a connection of it may have closed on its idle timeout).
    await f.pool.query('SELECT 1');
    const armedBefore = timers();
    for (const lined of [false, true]) {
      if (lined) while ((await f.repo.writeLines(500)) === 500);
      const abandoned = await exportRoundsNdjson(pool, 1000, 3999);
      abandoned.stream.on('error', () => undefined);
      for await (const _ of abandoned.stream) {
        void _;
        break;
      }
      abandoned.release();
      expect((await pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    }
    await new Promise((r) => setImmediate(r));
    expect(timers()).toBeLessThanOrEqual(armedBefore);
    await pool.end();
  });
});

describe('stored lines (round_lines)', () => {
  let f: StoreFixture;
  beforeEach(async () => {
    f = await storeFixture();
  });
  afterEach(() => f.close());

  const dumped = async (fromId: number, toId: number): Promise<string> => {
    const { stream, release } = await f.repo.exportNdjson(fromId, toId);
    let text = '';
    try {
      for await (const chunk of stream) text += chunk.toString();
    } finally {
      release();
    }
    return text;
  };
  const expected = (rounds: typeof history, fromId: number, toId: number): string =>
    rounds.filter((r) => r.id >= fromId && r.id <= toId).map((r) => `${JSON.stringify(r)}\n`).join('');
  const mark = async (): Promise<number> => Number((await f.pool.query('SELECT lined_below FROM indexer.totals')).rows[0].lined_below);
  const ranges: [number, number][] = [[0, 10_000], [1000, 1999], [1500, 2600], [2600, 3999], [3999, 3999], [5000, 6000]];

  it('stores each round its dump line, and a dump reads the same bytes before, during and after', async () => {
    const stored = history.filter((r) => r.id !== 2000 && r.id !== 2001);
    await f.repo.insertMany(stored);
    for (const [a, b] of ranges) expect(await dumped(a, b)).toBe(expected(stored, a, b));

    expect(await f.repo.writeLines(700)).toBe(700);
    expect(await mark()).toBe(stored[699]!.id + 1);
    for (const [a, b] of ranges) expect(await dumped(a, b)).toBe(expected(stored, a, b));

    while ((await f.repo.writeLines(700)) === 700);
    expect(await mark()).toBe(3999 + 1);
    expect(await f.repo.writeLines(700)).toBe(0);
    const lines = await f.pool.query<{ line: string }>('SELECT line FROM indexer.round_lines ORDER BY id');
    expect(lines.rows.map((r) => `${r.line}\n`).join('')).toBe(expected(stored, 0, 10_000));
    for (const [a, b] of ranges) expect(await dumped(a, b)).toBe(expected(stored, a, b));

    // Rounds stored below the mark (a gap filled, older history): the mark drops to the
    // lowest of them, dumps still hold every round, and the writer fills them in.
    const filled = [history.find((r) => r.id === 2000)!, history.find((r) => r.id === 2001)!];
    await f.repo.insertMany(filled);
    expect(await mark()).toBe(2000);
    for (const [a, b] of ranges) expect(await dumped(a, b)).toBe(expected(history, a, b));
    expect(await f.repo.writeLines(700)).toBe(2);
    expect(await mark()).toBe(3999 + 1);
    for (const [a, b] of ranges) expect(await dumped(a, b)).toBe(expected(history, a, b));
  });
});
