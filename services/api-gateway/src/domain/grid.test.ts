import { computeGrid } from './grid';

describe('computeGrid', () => {
  const aggregate = { hits: 4, deployed: 12_500_000_000n, lastHitId: 90, currentDrought: 7, maxDrought: 40 };
  const recent = [
    { id: 88, winningSquare: 12 },
    { id: 89, winningSquare: 3 },
    { id: 90, winningSquare: 12 },
  ];

  it('places the square on the grid and derives rates and droughts', () => {
    const g = computeGrid(12, aggregate, 100, recent);
    expect(g).toMatchObject({ square: 12, row: 2, column: 2, hits: 4, rounds: 100, hitRate: 0.04, expectedRate: 0.04, deployedSol: 12.5 });
    expect(g.avgDrought).toBeCloseTo(96 / 5, 10);
    expect(computeGrid(0, aggregate, 1, []).row).toBe(0);
    expect(computeGrid(24, aggregate, 1, [])).toMatchObject({ row: 4, column: 4 });
  });

  it('marks the rounds it won in the series, oldest first, with the series bounds', () => {
    const g = computeGrid(12, aggregate, 100, recent);
    expect(g.series).toEqual([1, 0, 1]);
    expect(g).toMatchObject({ seriesFromRoundId: 88, seriesToRoundId: 90 });
    expect(computeGrid(12, aggregate, 0, [])).toMatchObject({ series: [], seriesFromRoundId: null, hitRate: 0 });
  });
});
