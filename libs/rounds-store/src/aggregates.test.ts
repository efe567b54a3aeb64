import type { Round } from '@gridlab/contracts';
import fc from 'fast-check';
import { advanceDroughts, emptyDroughts, sumRounds, type DroughtState } from './aggregates';
import { packSquares, unpackSquares } from './packing';

function round(id: number, winningSquare: number | null, deployedEach = 1000): Round {
  return {
    id,
    deployed: Array(25).fill(deployedEach),
    count: Array(25).fill(2),
    winningSquare,
    totalDeployed: 25 * deployedEach,
    totalWinnings: 100,
    totalVaulted: 10,
    totalMiners: 50,
    motherlode: 0,
    topMinerReward: 0,
    slotHash: '11'.repeat(32),
    settledAt: '2026-11-22T00:00:00.000Z',
    payoutRule: 'parimutuel',
    oreReward: null,
    topMiner: null,
    split: null,
    productionCost: null,
    source: 'account',
    motherlodePool: null,
  };
}

describe('packing', () => {
  it('round-trips values up to 2^53 - 1 in the on-chain little-endian layout', () => {
    const values = [0, 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];
    const packed = packSquares(values);
    expect(packed.readBigUInt64LE(8 * 5)).toBe(BigInt(Number.MAX_SAFE_INTEGER));
    expect(packed.readBigUInt64LE(8 * 3)).toBe(2n ** 32n);
    expect(unpackSquares(packed)).toEqual(values);
  });
});

describe('droughts', () => {
  it('counts non-voided rounds since each square last won, and the longest run', () => {
    const winners = [3, 3, null, 7, 3, null, 1];
    const state = advanceDroughts(emptyDroughts(), winners.map((w, i) => round(i + 1, w)));
    expect(state[3]).toEqual({ lastHitId: 5, currentDrought: 1, maxDrought: 1 });
    expect(state[7]).toEqual({ lastHitId: 4, currentDrought: 2, maxDrought: 2 });
    // Never won: every non-voided round counts.
    expect(state[0]).toEqual({ lastHitId: null, currentDrought: 5, maxDrought: 5 });
  });

  it('gives the same state whether rounds arrive in one batch or several', () => {
    const rounds = Array.from({ length: 500 }, (_, i) => round(i + 1, i % 37 === 0 ? null : (i * 7919) % 25));
    const once = advanceDroughts(emptyDroughts(), rounds);
    const split = advanceDroughts(advanceDroughts(emptyDroughts(), rounds.slice(0, 123)), rounds.slice(123));
    expect(split).toEqual(once);
  });
});

describe('sumRounds', () => {
  it('sums totals, hits and per-square stakes, leaving voided rounds out of hit statistics', () => {
    const sums = sumRounds([round(5, 2), round(3, null), round(9, 2, 2000)]);
    expect(sums).toMatchObject({ rounds: 3, voided: 1, firstId: 3, lastId: 9 });
    expect(sums.totalDeployed).toBe(25_000n + 25_000n + 50_000n);
    expect(sums.settledDeployed).toBe(75_000n);
    expect(sums.winnerReturnX100).toBe(99n * 1000n + 10_000n + 99n * 2000n + 10_000n);
    expect(sums.hits[2]).toBe(2);
    expect(sums.hits.reduce((a, b) => a + b, 0)).toBe(2);
    expect(sums.deployedBySquare[0]).toBe(4000n);
  });
});

describe('sumRounds by payout rule', () => {
  it('counts a parimutuel round\'s winners\' stake back and a returns round\'s SOL returned, with its ORE at its cost', () => {
    const parimutuel = round(1, 0); // 25 x 1000 deployed, winnings 100
    const returns: Round = {
      ...round(2, 4),
      payoutRule: 'returns',
      totalWinnings: 22_000,
      motherlode: 50_000_000_000,
      oreReward: 100_000_000_000,
      topMiner: 'SpLiT11111111111111111111111111111111111112',
      split: true,
      productionCost: 400_000_000,
    };
    const voided: Round = { ...round(3, null), payoutRule: 'returns' };
    const sums = sumRounds([parimutuel, returns, voided]);
    expect(sums.byRule[0]).toEqual({ rounds: 1, settledDeployed: 25_000n, returnedX100: 99n * 1000n + 100n * 100n, oreReward: 0n, oreValue: 0n });
    // 1.5 ORE at 0.4 SOL per ORE = 0.6 SOL; the voided round counts nowhere.
    expect(sums.byRule[1]).toEqual({ rounds: 1, settledDeployed: 25_000n, returnedX100: 100n * 22_000n, oreReward: 150_000_000_000n, oreValue: 600_000_000n });
    expect(sums.winnerReturnX100).toBe(99n * 1000n + 100n * 100n + 100n * 22_000n);
  });
});

/** The definition, one round and one square at a time. */
function walkDroughts(state: readonly DroughtState[], rounds: readonly Round[]): DroughtState[] {
  const next = state.map((s) => ({ ...s }));
  for (const r of rounds) {
    if (r.winningSquare === null) continue;
    next.forEach((s, square) => {
      if (square === r.winningSquare) {
        s.currentDrought = 0;
        s.lastHitId = r.id;
      } else {
        s.currentDrought++;
        s.maxDrought = Math.max(s.maxDrought, s.currentDrought);
      }
    });
  }
  return next;
}

const safeAmount = fc.oneof(fc.nat(2_000_000_000), fc.maxSafeNat());

const anyRound = fc.record({
  winningSquare: fc.option(fc.integer({ min: 0, max: 24 }), { freq: 5 }),
  deployed: fc.array(safeAmount, { minLength: 25, maxLength: 25 }),
  totalDeployed: safeAmount,
  totalWinnings: safeAmount,
  motherlode: safeAmount,
  returns: fc.boolean(),
  oreReward: fc.option(safeAmount),
  productionCost: fc.option(safeAmount),
});

describe('aggregates against their definitions', () => {
  it('droughts: one pass over the winners equals the walk over every square, from any state', () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 24 }), { freq: 6 }), { maxLength: 300 }), fc.integer({ min: 0, max: 299 }), (winners, cut) => {
        const rounds = winners.map((w, i) => round(i + 1, w));
        const start = walkDroughts(emptyDroughts(), rounds.slice(0, cut));
        expect(advanceDroughts(start, rounds.slice(cut))).toEqual(walkDroughts(start, rounds.slice(cut)));
      }),
    );
  });

  it('sums are exact for any safe amounts: each equals the same sum in BigInt, round by round', () => {
    fc.assert(
      fc.property(fc.array(anyRound, { minLength: 1, maxLength: 40 }), (specs) => {
        const rounds = specs.map((x, i): Round => ({
          ...round(i + 1, x.winningSquare),
          deployed: x.deployed,
          totalDeployed: x.totalDeployed,
          totalWinnings: x.totalWinnings,
          motherlode: x.motherlode,
          payoutRule: x.returns ? 'returns' : 'parimutuel',
          oreReward: x.oreReward,
          productionCost: x.productionCost,
        }));
        const sums = sumRounds(rounds);
        const big = (f: (r: Round) => number, of: readonly Round[] = rounds): bigint => of.reduce((a, r) => a + BigInt(f(r)), 0n);
        expect(sums.totalDeployed).toBe(big((r) => r.totalDeployed));
        expect(sums.totalWinnings).toBe(big((r) => r.totalWinnings));
        expect(sums.deployedBySquare).toEqual(Array.from({ length: 25 }, (_, s) => big((r) => r.deployed[s]!)));
        (['parimutuel', 'returns'] as const).forEach((rule, code) => {
          const settled = rounds.filter((r) => r.winningSquare !== null && r.payoutRule === rule);
          const withOre = settled.filter((r) => r.oreReward !== null);
          const ore = (r: Round): bigint => BigInt(r.oreReward!) + BigInt(r.motherlode);
          expect(sums.byRule[code]).toEqual({
            rounds: settled.length,
            settledDeployed: big((r) => r.totalDeployed, settled),
            returnedX100: settled.reduce((a, r) => a + 100n * BigInt(r.totalWinnings) + (rule === 'parimutuel' ? 99n * BigInt(r.deployed[r.winningSquare!]!) : 0n), 0n),
            oreReward: withOre.reduce((a, r) => a + ore(r), 0n),
            oreValue: withOre.filter((r) => r.productionCost !== null).reduce((a, r) => a + (ore(r) * BigInt(r.productionCost!)) / 100_000_000_000n, 0n),
          });
        });
      }),
    );
  });
});
