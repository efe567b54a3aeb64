/**
 * The engine's payouts against the per-miner vectors worked out by hand from the
 * program's checkpoint (`fixtures/golden/settlement.json`, `checkpoint`): the stake is one
 * miner's part of the square's recorded total.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
