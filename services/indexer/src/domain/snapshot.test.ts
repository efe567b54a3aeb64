import { distributionMask, type BoardAccount } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { buildSnapshot, liveGame } from './snapshot';

const ORE = 100_000_000_000;
const board: BoardAccount = { roundId: 4242, startSlot: 100, endSlot: 250, epochOrCost: 300_000_000 };
const deployed = Array.from({ length: 25 }, (_, s) => (s + 1) * 10_000_000);
const prev = (fields: Partial<Round>): Round =>
  ({ id: 4241, payoutRule: 'returns', oreReward: ORE, topMiner: null, split: null, productionCost: 1, ...fields }) as Round;

describe('liveGame', () => {
  it('shows the returns rule\'s distribution mask, the pool, the production cost and each square\'s EV for the stake at that cost', () => {
    const game = liveGame(board, null, deployed, prev({}), { motherlodePool: 250 * ORE, evStakeLamports: 100_000_000 });
    const mask = distributionMask(4242);
    expect(game.splitSquares).toEqual(Array.from({ length: 25 }, (_, s) => (mask & (1 << s)) === 0));
    expect(game.splitSquares!.filter((split) => !split)).toHaveLength(10);
    expect(game).toMatchObject({ payoutRule: 'returns', oreReward: ORE, motherlodePool: 250 * ORE, productionCost: 300_000_000, evStakeLamports: 100_000_000, evOrePriceLamports: 300_000_000 });
    // By hand, square 0 (0.01 SOL there, T = 0.11 SOL with the stake): admin 1,100,000; a win returns
    // 99,000,000, a loss 89,100,000 (protocol 10,890,000): 89,496,000 expected. ORE: the prize's share
    // floor(1e11 * 1e8 / 1.1e8) = 90,909,090,909 (a solo draw: 90,909,090,909.09 on average) plus
    // floor(250e11 * 1e8 / 1.1e8) / 500 = 45,454,545,454.54, over 25; at 0.3 SOL an ORE 16,363,636.36.
    // EV 89,496,000 - 1e8 + 16,363,636.36 = 5,859,636.36: 0.058596 per lamport. Square 24 (0.25 SOL,
    // T = 0.35 SOL): the same SOL back, ORE 1,714,285,714.27 -> -0.053611.
    expect(game.evPerSol[0]).toBe(0.058596);
    expect(game.evPerSol[24]).toBe(-0.053611);
    // The emptiest square buys the most ORE per SOL.
    expect(game.evPerSol.indexOf(Math.max(...game.evPerSol))).toBe(0);
  });

  it('has no per-square split before the returns rule, values ORE at 0 without a production cost, and says when the pool is not read', () => {
    const v3Board = { ...board, epochOrCost: 7 };
    const game = liveGame(v3Board, null, deployed, prev({ payoutRule: 'parimutuel', oreReward: null }), { motherlodePool: null, evStakeLamports: 1_000_000_000 });
    expect(game).toMatchObject({ payoutRule: 'parimutuel', oreReward: ORE, motherlodePool: null, productionCost: null, splitSquares: null, evOrePriceLamports: 0 });
  });

  it('plays for 1 ORE after a voided round, whose own reward reads 0', () => {
    const game = liveGame(board, null, deployed, prev({ winningSquare: null, oreReward: 0 }), { motherlodePool: 0, evStakeLamports: 100_000_000 });
    expect(game.oreReward).toBe(ORE);
  });
});

describe('buildSnapshot', () => {
  it('carries the game when given its inputs, and none otherwise', () => {
    expect(buildSnapshot(board, null, 120, null, 0.4, new Date(0)).game).toBeUndefined();
    expect(buildSnapshot(board, null, 120, null, 0.4, new Date(0), { motherlodePool: 0, evStakeLamports: 1 }).game?.payoutRule).toBe('returns');
  });
});
