import type { Round } from '@gridlab/contracts';
import { advanceDroughts, emptyDroughts, sumRounds } from './aggregates';
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
