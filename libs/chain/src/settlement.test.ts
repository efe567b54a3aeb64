import { encodeRound, decodeRound } from './round.codec';
import { inferPayoutRule } from './payout-rule';
import { settleReturns, settleRound } from './settlement';

const squares = (values: Record<number, number>) => Array.from({ length: 25 }, (_, i) => values[i] ?? 0);

describe('settleReturns', () => {
  it('returns each square its own SOL less the admin fee, and losing squares less the protocol fee too', () => {
    // Square 0 wins with 1,000,000; square 1 loses 250,000; square 2 loses 99 (minimum fees).
    const totals = settleReturns(squares({ 0: 1_000_000, 1: 250_000, 2: 99 }), 0);
    // admin: 10,000 + 2,500 + max(1, 0) = 12,501
    expect(totals.adminFee).toBe(12_501);
    // protocol: floor(247,500 / 10) = 24,750 and max(1, floor(98 / 10)) = 9
    expect(totals.totalVaulted).toBe(24_759);
    expect(totals.totalWinnings).toBe(1_250_099 - 12_501 - 24_759);
  });

  it('charges the minimum fee of 1 lamport on a tiny losing square', () => {
    const totals = settleReturns(squares({ 4: 5, 9: 1_000 }), 9);
    // square 4: admin 1, protocol max(1, floor(4/10)) = 1 -> 3 back; square 9: admin 10 -> 990 back
    expect(totals).toEqual({ totalDeployed: 1_005, adminFee: 11, totalVaulted: 1, totalWinnings: 993 });
  });

  it('vaults the minimum protocol fee even from a 1-lamport losing square, as the program does', () => {
    // square 2: admin max(1, 0) = 1, protocol max(1, 0/10) = 1 (calculate_fees caps neither); returned 1,001 - 12
    expect(settleReturns(squares({ 2: 1, 9: 1_000 }), 9)).toEqual({ totalDeployed: 1_001, adminFee: 11, totalVaulted: 1, totalWinnings: 989 });
  });

  it('settles a round with nobody on the winning square by its own arithmetic', () => {
    const totals = settleReturns(squares({ 1: 1_000 }), 0);
    expect(totals).toEqual({ totalDeployed: 1_000, adminFee: 10, totalVaulted: 99, totalWinnings: 891 });
  });

  it('refunds a voided round in full', () => {
    expect(settleReturns(squares({ 1: 700, 3: 300 }), null)).toEqual({ totalDeployed: 1_000, adminFee: 0, totalVaulted: 0, totalWinnings: 1_000 });
  });
});

describe('settleRound (parimutuel) with nobody on the winning square', () => {
  it('vaults everything after the admin fee', () => {
    expect(settleRound(squares({ 1: 1_000, 2: 500 }), 0)).toEqual({ totalDeployed: 1_500, adminFee: 15, totalVaulted: 1_485, totalWinnings: 0 });
  });
});

describe('inferPayoutRule', () => {
  // A slot hash whose rng % 25 is 0: all zero but the first byte = 25.
  const hash = new Uint8Array(32);
  hash[0] = 25;
  const deployed = squares({ 0: 3_000_000, 1: 2_000_000, 5: 777_777 });
  const round = (totals: { totalWinnings: number; totalVaulted: number }, layout: 568 | 952 = 952, slotHash = hash, d = deployed) =>
    decodeRound(encodeRound({ id: 10, deployed: d, slotHash, totalDeployed: 5_777_777, ...totals }, layout));

  it('takes v3 accounts as parimutuel from their layout', () => {
    expect(inferPayoutRule(round({ totalWinnings: 1, totalVaulted: 1 }, 568), 'returns')).toEqual({ ok: true, rule: 'parimutuel', basis: 'layout' });
  });

  it('tells returns from parimutuel by which rule reproduces both totals', () => {
    expect(inferPayoutRule(round(settleReturns(deployed, 0)), null)).toEqual({ ok: true, rule: 'returns', basis: 'totals' });
    expect(inferPayoutRule(round(settleRound(deployed, 0)), 'returns')).toEqual({ ok: true, rule: 'parimutuel', basis: 'totals' });
  });

  it('reports a round that matches neither rule, even when one total matches', () => {
    const returns = settleReturns(deployed, 0);
    const result = inferPayoutRule(round({ totalWinnings: returns.totalWinnings, totalVaulted: returns.totalVaulted + 1 }), 'returns');
    expect(result).toMatchObject({ ok: false, reason: 'no_rule_matches' });
  });

  it('gives a voided or empty round the rule of the round before it', () => {
    const voided = round({ totalWinnings: 5_777_777, totalVaulted: 0 }, 952, new Uint8Array(32).fill(0xff), squares({}));
    expect(inferPayoutRule(voided, 'parimutuel')).toEqual({ ok: true, rule: 'parimutuel', basis: 'earlier_round' });
    expect(inferPayoutRule(voided, null)).toEqual({ ok: true, rule: 'returns', basis: 'current_program' });
    const empty = round({ totalWinnings: 0, totalVaulted: 0 }, 952, hash, squares({}));
    expect(inferPayoutRule(empty, 'returns')).toEqual({ ok: true, rule: 'returns', basis: 'earlier_round' });
  });
});
