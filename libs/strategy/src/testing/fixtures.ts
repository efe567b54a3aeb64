/** Test support: small round histories whose numbers can be followed by hand. */
import fc from 'fast-check';
import type { RoundInput } from '../history/history';

export const SOL = 1_000_000_000;

/** `total_winnings` as the program's reset writes it (SPEC 3; `reset.rs` at 3112ab7): `w = L - L/100`, `w - w/10`. */
function totalWinnings(deployed: readonly number[], winner: number | null): number {
  if (winner === null || deployed[winner] === 0) return 0;
  const losing = deployed.reduce((a, b) => a + b, 0) - deployed[winner]!;
  const afterFee = losing - Math.floor(losing / 100);
  return afterFee - Math.floor(afterFee / 10);
}

/** A round with the given per-square SOL; totals derived. */
export function round(id: number, winner: number | null, deployed: readonly number[], count?: readonly number[]): RoundInput {
  const miners = count ?? deployed.map(() => 1);
  return {
    id,
    deployed: [...deployed],
    count: [...miners],
    winningSquare: winner,
    totalDeployed: deployed.reduce((a, b) => a + b, 0),
    totalWinnings: totalWinnings(deployed, winner),
    totalMiners: miners.reduce((a, b) => a + b, 0),
  };
}

/** 1 SOL on every square, one miner each. */
export function flatRound(id: number, winner: number | null): RoundInput {
  return round(id, winner, Array(25).fill(SOL));
}

/**
 * The 30-round fixture: ids 1..31 without 20 (a gap), id 10 voided. In round `id`,
 * square s holds (1 + (s + id) % 25) x 0.1 SOL, so the least-deployed square is
 * (25 - id % 25) % 25, and (1 + (24 - s + id) % 25) miners, so the fewest are on
 * square (24 + id) % 25.
 */
const FIXTURE_WINNERS: ReadonlyArray<readonly [number, number | null]> = [
  [1, 0], [2, 0], [3, 3], [4, 7], [5, 3], [6, 12], [7, 24], [8, 3], [9, 7], [10, null],
  [11, 0], [12, 5], [13, 5], [14, 5], [15, 18], [16, 3], [17, 21], [18, 0], [19, 9], [21, 3],
  [22, 12], [23, 12], [24, 1], [25, 3], [26, 7], [27, 0], [28, 24], [29, 6], [30, 3], [31, 11],
];

export function fixtureRounds(): RoundInput[] {
  return FIXTURE_WINNERS.map(([id, winner]) =>
    round(
      id,
      winner,
      Array.from({ length: 25 }, (_, s) => (1 + ((s + id) % 25)) * 100_000_000),
      Array.from({ length: 25 }, (_, s) => 1 + ((24 - s + id) % 25)),
    ),
  );
}

/** fast-check: histories of settled rounds with random stakes (zeros included), gaps and voided rounds. */
export function arbitraryHistory(minLength = 1, maxLength = 60): fc.Arbitrary<RoundInput[]> {
  const one = fc.record({
    gap: fc.integer({ min: 1, max: 3 }),
    winner: fc.option(fc.integer({ min: 0, max: 24 }), { freq: 12 }),
    deployed: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 * SOL })), { minLength: 25, maxLength: 25 }),
    count: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 25, maxLength: 25 }),
  });
  return fc.array(one, { minLength, maxLength }).map((items) => {
    let id = 1000;
    return items.map((it) => {
      id += it.gap;
      return round(id, it.winner, it.deployed, it.count);
    });
  });
}

/** SPEC 3 `returns` totals: SOL returned (total less the admin and protocol fees, none below 0 a square). */
function returnsWinnings(deployed: readonly number[], winner: number | null): number {
  let total = 0;
  for (let s = 0; s < 25; s++) {
    const t = deployed[s]!;
    if (winner === null || t === 0) {
      total += t;
      continue;
    }
    const admin = Math.max(1, Math.floor(t / 100));
    const protocol = s === winner ? 0 : Math.max(1, Math.floor((t - admin) / 10));
    total += Math.max(0, t - admin - protocol);
  }
  return total;
}

export interface ReturnsFields {
  readonly oreReward?: number | null;
  readonly motherlode?: number;
  readonly split?: boolean;
  readonly productionCost?: number | null;
  readonly slotHash?: string;
}

/** A round settled under the `returns` rule (defaults: 1 ORE, split, 0.3 SOL per ORE). */
export function returnsRound(id: number, winner: number | null, deployed: readonly number[], fields: ReturnsFields = {}, count?: readonly number[]): RoundInput {
  const base = round(id, winner, deployed, count);
  return {
    ...base,
    totalWinnings: returnsWinnings(deployed, winner),
    payoutRule: 'returns',
    oreReward: fields.oreReward === undefined ? ORE : fields.oreReward,
    motherlode: fields.motherlode ?? 0,
    split: fields.split ?? true,
    productionCost: fields.productionCost === undefined ? 300_000_000 : fields.productionCost,
    slotHash: fields.slotHash ?? '11'.repeat(32),
  };
}

/** 1 ORE in base units. */
export const ORE = 100_000_000_000;

/**
 * fast-check: histories like arbitraryHistory's whose rounds are settled under either
 * rule: all parimutuel, all returns, or parimutuel up to a cutover then returns (the
 * case a window spanning 2026-08-12 meets). Returns rounds draw their ORE reward,
 * motherlode, split, production cost (sometimes unknown) and slot hash, and small
 * squares (under 300 lamports) so the minimum fees apply.
 */
export function arbitraryMixedHistory(minLength = 1, maxLength = 60): fc.Arbitrary<RoundInput[]> {
  const one = fc.record({
    gap: fc.integer({ min: 1, max: 3 }),
    winner: fc.option(fc.integer({ min: 0, max: 24 }), { freq: 12 }),
    deployed: fc.array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 3 * SOL })), { minLength: 25, maxLength: 25 }),
    count: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 25, maxLength: 25 }),
    oreReward: fc.oneof(fc.constant(ORE), fc.constant(0), fc.constant(null), fc.integer({ min: 1, max: 3 * ORE })),
    motherlode: fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 500 * ORE }) }),
    split: fc.boolean(),
    productionCost: fc.oneof(fc.integer({ min: 1, max: 2 * SOL }), fc.constant(null)),
    slotHash: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex')),
  });
  return fc
    .tuple(fc.array(one, { minLength, maxLength }), fc.oneof(fc.constant(-1), fc.constant(0), fc.integer({ min: 1, max: maxLength })))
    .map(([items, cutover]) => {
      let id = 1000;
      return items.map((it, i) => {
        id += it.gap;
        // cutover -1: all parimutuel; otherwise returns from index `cutover` on.
        if (cutover < 0 || i < cutover) return round(id, it.winner, it.deployed, it.count);
        return returnsRound(id, it.winner, it.deployed, it, it.count);
      });
    });
}
