/**
 * Gridlab's reading of the ORE program held against outside truth: the golden vectors
 * worked out by hand from the program's Rust source (`fixtures/golden/`), and settled
 * rounds read from mainnet byte for byte (`fixtures/mainnet/`). No expected value here
 * comes from running this package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSplitByRng, isSplitSquare } from './distribution';
import { solBack } from './expected-value';
import { inferPayoutRule } from './payout-rule';
import { decodeRound } from './round.codec';
import { slotHashRng, winningSquare } from './rng';
import { settleBy, type PayoutRule } from './settlement';
import { SPLIT_ADDRESS } from './ore-layout';

const FIXTURES = join(__dirname, '../../../fixtures');

interface SettlementVector {
  readonly name: string;
  readonly rule: PayoutRule;
  readonly deployed: number[];
  readonly winningSquare: number | null;
  readonly expect: { totalDeployed: number; adminFee: number; totalVaulted: number; totalWinnings: number };
}
interface CheckpointVector {
  readonly name: string;
  readonly rule: PayoutRule;
  readonly deployed: number[];
  readonly winningSquare: number;
  readonly square: number;
  readonly stake: number;
  readonly expect: number;
}
const golden = JSON.parse(readFileSync(join(FIXTURES, 'golden/settlement.json'), 'utf8')) as {
  settlement: SettlementVector[];
  checkpoint: CheckpointVector[];
};

describe('settlement, against the vectors worked from the program source', () => {
  it.each(golden.settlement.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    expect(settleBy(v.rule, v.deployed, v.winningSquare)).toEqual(v.expect);
  });

  it('covers both rules, voided rounds and empty winning squares', () => {
    const names = golden.settlement.map((v) => v.name).join('\n');
    for (const rule of ['parimutuel', 'returns']) {
      expect(names).toContain(`${rule}: voided`);
      expect(names).toContain(`${rule}: nobody on the winning square`);
      expect(names).toContain(`${rule}: largest amounts`);
    }
  });
});

describe('one miner\'s SOL back (the EV\'s outcomes), against the checkpoint vectors', () => {
  it.each(golden.checkpoint.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const withoutStake = v.deployed.map((d, s) => (s === v.square ? d - v.stake : d));
    expect(solBack(v.rule, withoutStake, v.square, v.stake, v.winningSquare)).toBe(v.expect);
  });
});

/** Every settled round account in a fixtures folder, decoded. */
function mainnetRounds(folder: string) {
  const dir = join(FIXTURES, 'mainnet', folder);
  return readdirSync(dir)
    .filter((f) => f.startsWith('round_'))
    .map((f) => decodeRound(new Uint8Array(readFileSync(join(dir, f)))));
}

describe('settled mainnet rounds', () => {
  const parimutuel = mainnetRounds('rounds-952-parimutuel');
  const returns = mainnetRounds('accounts-2026-10');

  it('reads all nine', () => {
    expect(parimutuel.map((r) => r.id)).toEqual([345099, 345101, 345103, 345105, 345107, 345109, 345111]);
    expect(returns.map((r) => r.id)).toEqual([423310, 423800]);
  });

  it.each([...parimutuel.map((r) => ['parimutuel', r] as const), ...returns.map((r) => ['returns', r] as const)])(
    'reproduces the stored totals of a %s round, and infers its rule from them',
    (rule, round) => {
      const totals = settleBy(rule, round.deployed, winningSquare(round.slotHash));
      expect({ totalVaulted: totals.totalVaulted, totalWinnings: totals.totalWinnings, totalDeployed: totals.totalDeployed }).toEqual({
        totalVaulted: round.totalVaulted,
        totalWinnings: round.totalWinnings,
        totalDeployed: round.deployed.reduce((a, b) => a + b, 0),
      });
      expect(inferPayoutRule(round, null)).toEqual({ ok: true, rule, basis: 'totals' });
    },
  );

  it('splits the prize as the program decided: by the round\'s randomness before 2026-07-29, by the round id\'s mask after', () => {
    for (const r of parimutuel) expect([r.id, isSplitByRng(slotHashRng(r.slotHash))]).toEqual([r.id, r.topMiner === SPLIT_ADDRESS]);
    for (const r of returns) expect([r.id, isSplitSquare(r.id, winningSquare(r.slotHash)!)]).toEqual([r.id, r.topMiner === SPLIT_ADDRESS]);
  });
});
