/**
 * Partly known rounds (`transactions_partial`: rebuilt from transactions whose automated
 * deploys did not show their squares) through storage: stored with their unknown figures
 * and read back as null, dumped as such, left out of the per-square sums and of what a
 * replay loads.
 */
import type { Round } from '@gridlab/contracts';
import { syntheticRounds } from '@gridlab/testing';
import { RoundColumnsReader, type ColumnRound, type RoundColumnSink } from '../src';
import { storeFixture, type StoreFixture } from './helpers';

const known = syntheticRounds(40, { seed: 11, firstId: 100, voidedRate: 0.05 });
/** Rounds 110, 120 and 130 partly known: the winning square's stake and miners known (not in 120), the rest null. */
const history: Round[] = known.map((r) => {
  if (r.id % 10 !== 0 || r.id === 100 || r.id === 140) return r;
  const w = r.winningSquare ?? 0;
  const keep = r.id !== 120;
  return {
    ...r,
    source: 'transactions_partial',
    deployed: r.deployed.map((v, s) => (keep && s === w ? v : null)),
    count: r.count.map((v, s) => (s === w ? v : null)),
    totalMiners: r.id === 130 ? r.totalMiners : null,
  };
});
const partial = history.filter((r) => r.source === 'transactions_partial');

describe('partly known rounds in storage', () => {
  let f: StoreFixture;
  beforeAll(async () => {
    f = await storeFixture();
    await f.repo.insertMany(history);
  });
  afterAll(() => f.close());

  it('reads back every null where it was stored', async () => {
    expect(partial.map((r) => r.id)).toEqual([110, 120, 130]);
    expect(await f.repo.getRounds({ fromId: 0, toId: 1000 })).toEqual(history);
    expect(await f.repo.findWithNeighbours(120)).toMatchObject({ round: { deployed: new Array(25).fill(null), totalMiners: null } });
  });

  it('dumps JSON.stringify of each round, nulls included, before and after its line is stored', async () => {
    const dumped = async (): Promise<string> => {
      const { stream, release } = await f.repo.exportNdjson(0, 1000);
      let text = '';
      try {
        for await (const chunk of stream) text += chunk.toString();
      } finally {
        release();
      }
      return text;
    };
    const expected = history.map((r) => `${JSON.stringify(r)}\n`).join('');
    expect(await dumped()).toBe(expected);
    while ((await f.repo.writeLines(100)) > 0);
    expect(await dumped()).toBe(expected);
  });

  it('adds only known figures to the per-square sums, and leaves a round whose winning stake is unknown out of the house edge', async () => {
    const agg = await f.repo.aggregates();
    const settled = history.filter((r) => r.winningSquare !== null && r.deployed[r.winningSquare] !== null);
    expect(agg).toMatchObject({
      roundsIndexed: 40,
      totalDeployed: BigInt(history.reduce((a, r) => a + r.totalDeployed, 0)),
      settledDeployed: BigInt(settled.reduce((a, r) => a + r.totalDeployed, 0)),
      // parimutuel: 99 x the winners' stake + 100 x what they shared.
      winnerReturnX100: BigInt(settled.reduce((a, r) => a + 99 * r.deployed[r.winningSquare!]! + 100 * r.totalWinnings, 0)),
    });
    expect(agg.squares.map((s) => s.deployed)).toEqual(Array.from({ length: 25 }, (_, s) => BigInt(history.reduce((a, r) => a + (r.deployed[s] ?? 0), 0))));
    expect(agg.squares.map((s) => s.hits).reduce((a, b) => a + b, 0)).toBe(history.filter((r) => r.winningSquare !== null).length);
  });

  it('leaves partly known rounds out of what a replay loads, and out of the count it checks', async () => {
    const reader = new RoundColumnsReader(f.pool);
    const ids: number[] = [];
    const sink: RoundColumnSink = {
      get lastId() {
        return ids.length === 0 ? null : ids[ids.length - 1]!;
      },
      append(round: ColumnRound) {
        ids.push(round.id);
      },
    };
    const replayed = history.filter((r) => r.source !== 'transactions_partial').map((r) => r.id);
    expect(await reader.copyRange(sink, null, 1000)).toBe(37);
    expect(ids).toEqual(replayed);
    ids.length = 0;
    expect(await reader.copyAllInStorageOrder(sink, 1000)).toBe(37);
    expect(ids).toEqual(replayed);
    expect(await reader.totals()).toEqual({ count: 37, lastId: 139 });
  });
});
