/**
 * The engine's fast payout (integer arithmetic by reciprocal products, for the replay's
 * hot loop) held equal to the program's settlement as `@gridlab/chain` writes it once
 * (`solBack`: what a checkpoint pays one miner), over random boards of both rules:
 * amounts from 1 lamport to the largest a double holds exactly, every remainder.
 */
import { solBack } from '@gridlab/chain';
import fc from 'fast-check';
import { payoutLamports, returnedLamports } from './payout';

const SQUARES = 25;
// Totals stay below 2^53: 25 squares of at most 2^53 / 26 each, plus the stake.
const MAX_AMOUNT = Math.floor(2 ** 53 / 26);
const amount = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 10_000 }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 5_000_000_000_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: MAX_AMOUNT - 1_000_000, max: MAX_AMOUNT }) },
);
const round = fc.record({
  board: fc.array(amount, { minLength: SQUARES, maxLength: SQUARES }),
  square: fc.integer({ min: 0, max: SQUARES - 1 }),
  winner: fc.integer({ min: 0, max: SQUARES - 1 }),
  stake: fc.oneof(fc.integer({ min: 1, max: 1_000 }), fc.integer({ min: 1, max: MAX_AMOUNT })),
});

describe('the engine\'s payout equals the program\'s settlement', () => {
  it('parimutuel: the stake back less the admin fee plus its share of the winnings on the winning square, nothing elsewhere', () => {
    fc.assert(
      fc.property(round, ({ board, square, winner, stake }) => {
        const others = board.reduce((a, d, s) => (s === square ? a : a + d), 0);
        const engine = square === winner ? payoutLamports(stake, board[square]!, others) : 0;
        expect(engine).toBe(solBack('parimutuel', board, square, stake, winner));
      }),
      { numRuns: 20_000 },
    );
  });

  it('returns: each square its SOL back less the admin fee, and the protocol fee off the losing squares', () => {
    fc.assert(
      fc.property(round, ({ board, square, winner, stake }) => {
        expect(returnedLamports(stake, board[square]!, square === winner)).toBe(solBack('returns', board, square, stake, winner));
      }),
      { numRuns: 20_000 },
    );
  });
});
