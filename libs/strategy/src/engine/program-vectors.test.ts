/**
 * The engine's payouts against the per-miner vectors worked out by hand from the
 * program's checkpoint (`fixtures/golden/settlement.json`, `checkpoint`): the stake is one
 * miner's part of the square's recorded total.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { payoutLamports, returnedLamports } from './payout';

interface CheckpointVector {
  readonly name: string;
  readonly rule: 'parimutuel' | 'returns';
  readonly deployed: number[];
  readonly winningSquare: number;
  readonly square: number;
  readonly stake: number;
  readonly expect: number;
}
const { checkpoint } = JSON.parse(readFileSync(join(__dirname, '../../../../fixtures/golden/settlement.json'), 'utf8')) as { checkpoint: CheckpointVector[] };

// A parimutuel loser is paid nothing before any payout function runs: the runner's, not payout.ts's.
const paid = checkpoint.filter((v) => v.rule === 'returns' || v.square === v.winningSquare);

describe('payouts, against the checkpoint vectors worked from the program source', () => {
  it.each(paid.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const others = v.deployed[v.square]! - v.stake;
    if (v.rule === 'returns') {
      expect(returnedLamports(v.stake, others, v.square === v.winningSquare)).toBe(v.expect);
    } else {
      const losing = v.deployed.reduce((a, b) => a + b, 0) - v.deployed[v.winningSquare]!;
      expect(payoutLamports(v.stake, others, losing)).toBe(v.expect);
    }
  });
});

describe('payoutLamports, against the program\'s parimutuel arithmetic in BigInt', () => {
  /** reset.rs@3112ab7 L177-187 and checkpoint.rs@3112ab7 L84-91, written here in u128 arithmetic. */
  const program = (sw: number, dw: number, l: number): number => {
    const L = BigInt(l);
    const w = L - L / 100n;
    const tw = w - w / 10n;
    const s = BigInt(sw);
    return Number(s - (s / 100n > 1n ? s / 100n : 1n) + (tw * s) / (BigInt(dw) + s));
  };

  it('agrees for any stake, square and board below 2^52 lamports, and at the division edges', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 45 }), fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: 0, max: 2 ** 52 - 1 }), (sw, dw, l) => {
        expect(payoutLamports(sw, dw, l)).toBe(program(sw, dw, l));
      }),
      { numRuns: 20_000 },
    );
    for (const l of [0, 9, 10, 99, 100, 101, 199, 200, 999, 1000, 2 ** 52 - 1, 2 ** 52 - 100, 2 ** 52 - 101]) {
      for (const sw of [1, 99, 100, 199, 200, 201, 10_000_000]) expect([l, sw, payoutLamports(sw, 5, l)]).toEqual([l, sw, program(sw, 5, l)]);
    }
  });
});
