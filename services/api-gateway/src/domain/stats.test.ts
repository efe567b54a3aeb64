import { chiSquaredPValue, uniformityStatistic } from '@gridlab/strategy';
import { computeStats, lamportsToSol, type HistoryAggregates } from './stats';

describe('chiSquaredPValue', () => {
  it('matches reference values of the chi-squared distribution with 24 degrees of freedom', () => {
    // Critical values: P(X > 36.415) = 0.05, P(X > 42.980) = 0.01, median 23.337.
    expect(chiSquaredPValue(36.415, 24)).toBeCloseTo(0.05, 4);
    expect(chiSquaredPValue(42.98, 24)).toBeCloseTo(0.01, 4);
    expect(chiSquaredPValue(23.337, 24)).toBeCloseTo(0.5, 3);
    expect(chiSquaredPValue(0, 24)).toBe(1);
  });

  it('rejects odd degrees of freedom, for which the closed form does not hold', () => {
    expect(() => chiSquaredPValue(3, 23)).toThrow(RangeError);
  });
});

describe('uniformityStatistic', () => {
  it('is zero for perfectly even counts and grows with imbalance', () => {
    expect(uniformityStatistic(Array(25).fill(40))).toEqual({ statistic: 0, sampleSize: 1000 });
    const skewed = [...Array(24).fill(40), 80];
    expect(uniformityStatistic(skewed).statistic).toBeCloseTo((38.4 * 38.4) / 41.6 + 24 * ((1.6 * 1.6) / 41.6), 6);
  });
});

describe('computeStats', () => {
  const base: HistoryAggregates = {
    roundsIndexed: 1002,
    voidedRounds: 2,
    firstId: 1,
    lastId: 1002,
    totalDeployed: 15_000_000_000_000n,
    totalWinnings: 12_000_000_000_000n,
    settledDeployed: 14_970_000_000_000n,
    winnerReturnX100: 99n * 600_000_000_000n + 100n * 12_000_000_000_000n,
    updatedAt: new Date('2026-11-22T06:11:10.123Z'),
    byRule: {
      parimutuel: { rounds: 1000, settledDeployed: 14_970_000_000_000n, returnedX100: 99n * 600_000_000_000n + 100n * 12_000_000_000_000n, oreReward: 0n, oreValue: 0n },
      returns: { rounds: 0, settledDeployed: 0n, returnedX100: 0n, oreReward: 0n, oreValue: 0n },
    },
    squares: Array.from({ length: 25 }, (_, s) => ({ hits: 40, deployed: 600_000_000_000n + BigInt(s), currentDrought: s, maxDrought: 100 + s })),
  };

  it('counts hit statistics over non-voided rounds, with per-square hits summing to them', () => {
    const stats = computeStats(base);
    expect(stats.chiSquared).toEqual({ statistic: 0, degreesOfFreedom: 24, pValue: 1, sampleSize: 1000 });
    expect(stats.perGrid.reduce((n, g) => n + g.hits, 0)).toBe(stats.roundsIndexed - 2);
    expect(stats.perGrid[3]).toEqual({ square: 3, hits: 40, hitRate: 0.04, expectedHits: 40, deployedSol: 600.000000003, currentDrought: 3, maxDrought: 103 });
    expect(stats.totalDeployedSol).toBe(15_000);
    expect(stats.updatedAt).toBe('2026-11-22T06:11:10.123Z');
  });

  it('computes the effective house edge from the exact sums', () => {
    const edge = 1 - (0.99 * 600_000_000_000 + 12_000_000_000_000) / 14_970_000_000_000;
    expect(computeStats(base).effectiveHouseEdge).toBeCloseTo(edge, 12);
  });

  it('reports each payout rule on its own, the ORE prize valued at its production cost', () => {
    // Two returns rounds of 10 SOL each that paid back 8.9 and 9.1 SOL, 2.5 ORE in all worth 0.75 SOL.
    const returns = { rounds: 2, settledDeployed: 20_000_000_000n, returnedX100: 100n * 18_000_000_000n, oreReward: 250_000_000_000n, oreValue: 750_000_000n };
    const stats = computeStats({ ...base, byRule: { ...base.byRule, returns } });
    expect(stats.byPayoutRule.returns).toEqual({
      rounds: 2,
      deployedSol: 20,
      returnedSol: 18,
      effectiveHouseEdge: 1 - 18 / 20,
      oreRewarded: 2.5,
      oreValueSol: 0.75,
      effectiveHouseEdgeWithOre: 1 - 18.75 / 20,
    });
    expect(stats.byPayoutRule.parimutuel.effectiveHouseEdge).toBeCloseTo(computeStats(base).effectiveHouseEdge!, 12);
    expect(computeStats(base).byPayoutRule.returns.effectiveHouseEdge).toBeNull();
  });

  it('reports no edge and zero rates before any settled round', () => {
    const empty = computeStats({ ...base, roundsIndexed: 0, voidedRounds: 0, settledDeployed: 0n, squares: base.squares.map((s) => ({ ...s, hits: 0 })) });
    expect(empty.effectiveHouseEdge).toBeNull();
    expect(empty.perGrid[0]!.hitRate).toBe(0);
  });

  it('converts lamport sums above 2^53 without losing precision in the whole part', () => {
    expect(lamportsToSol(12_345_678_901_234_567_891n)).toBeCloseTo(12_345_678_901.234568, 3);
  });
});
