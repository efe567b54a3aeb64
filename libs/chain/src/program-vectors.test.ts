/**
 * Gridlab's reading of the ORE program held against outside truth: the golden vectors
 * worked out by hand from the program's Rust source (`fixtures/golden/`), and settled
 * rounds read from mainnet byte for byte (`fixtures/mainnet/`). No expected value here
 * comes from running this package.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeBase58 } from './base58';
import { distributionMask, isSplitByRng, isSplitSquare } from './distribution';
import { decodeOreEvent, encodeDeployEvent, type DeployEvent } from './events';
import { inferPayoutRule } from './payout-rule';
import { decodeRound } from './round.codec';
import { slotHashRng, winningSquare } from './rng';
import { settleBy, solBack, type PayoutRule } from './settlement';
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

interface EventVector {
  readonly name: string;
  readonly length: number;
  readonly fields: Readonly<Record<string, number | string>>;
  readonly hex: string;
}
const goldenEvents = JSON.parse(readFileSync(join(FIXTURES, 'golden/events.json'), 'utf8')) as {
  events: EventVector[];
  splitMasks: { roundId: number; expect: number }[];
};

describe('events against the golden vectors (every layout the program logged)', () => {
  const u64 = (v: number | string | undefined): number | null => (v === undefined ? null : String(v) === '18446744073709551615' ? null : Number(v));
  it.each(goldenEvents.events.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const bytes = Buffer.from(v.hex, 'hex');
    const decoded = decodeOreEvent(bytes);
    const f = v.fields;
    if (f['disc'] === 2) {
      const expected = {
        kind: 'deploy',
        authority: f['authority'],
        amount: f['amount'],
        mask: f['mask'],
        roundId: f['round_id'],
        signer: f['signer'],
        strategy: u64(f['strategy']),
        totalSquares: f['total_squares'],
        ts: f['ts'],
      };
      expect(decoded).toEqual(expected);
      expect(Buffer.from(encodeDeployEvent({ ...(decoded as DeployEvent), authority: decodeBase58(String(f['authority'])), signer: decodeBase58(String(f['signer'])) })).toString('hex')).toBe(v.hex);
      return;
    }
    expect(decoded).toEqual({
      kind: 'reset',
      length: v.length,
      roundId: f['round_id'],
      startSlot: f['start_slot'],
      endSlot: f['end_slot'],
      winningSquare: u64(f['winning_square']),
      topMiner: f['top_miner'],
      minersField: u64(f['num_winners'] ?? f['total_miners']),
      motherlode: u64(f['motherlode']),
      totalDeployed: f['total_deployed'] ?? f['total_prospects'],
      totalVaulted: f['total_vaulted'],
      totalWinnings: f['total_winnings'],
      totalMinted: f['total_minted'],
      ts: f['ts'],
      rng: f['rng'] === undefined ? null : BigInt(f['rng']),
      deployedWinningSquare: u64(f['deployed_winning_square']),
    });
  });

  it.each(goldenEvents.splitMasks.map((v) => [v.roundId, v] as const))('gives round %d the split mask of Round::distribution_mask', (_id, v) => {
    expect(distributionMask(v.roundId)).toBe(v.expect);
  });
});
