import { layout, settleReturns, settleRound, winningSquare } from '@gridlab/chain';
import type { KnownRound, PayoutRule, Round } from '@gridlab/contracts';
import bs58 from 'bs58';

/** mulberry32: a tiny seeded PRNG, so generated history is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticOptions {
  readonly seed?: number;
  readonly firstId?: number;
  /** Fraction of rounds voided (slot hash all 0xFF). */
  readonly voidedRate?: number;
  readonly startTime?: number;
  /**
   * The payout rule of every round (default `parimutuel`, as v3 rounds), or a function
   * of the round's index, for histories that span the cutover. `returns` rounds carry
   * the 952-byte fields: 1 ORE reward, split half the time, a motherlode 1 round in
   * 500, and a production cost near 0.3 SOL per ORE.
   */
  readonly payoutRule?: PayoutRule | ((index: number) => PayoutRule);
}

const ORE = 100_000_000_000;

/**
 * `count` valid settled rounds with consecutive ids: random stakes, a winning square
 * derived from a random slot hash, and totals from the settlement rule. For tests and
 * benchmarks that need realistic history without running the devnet.
 */
export function syntheticRounds(count: number, options: SyntheticOptions = {}): KnownRound[] {
  const random = prng(options.seed ?? 42);
  const firstId = options.firstId ?? 1;
  const start = options.startTime ?? Date.UTC(2026, 0, 1);
  const out = new Array<KnownRound>(count);
  for (let i = 0; i < count; i++) {
    const deployed = new Array<number>(25);
    const miners = new Array<number>(25);
    for (let s = 0; s < 25; s++) {
      deployed[s] = Math.floor(random() * 1_200_000_000);
      miners[s] = 1 + Math.floor(random() * 30);
    }
    const hash = new Uint8Array(32);
    if (random() < (options.voidedRate ?? 0.01)) hash.fill(0xff);
    else for (let b = 0; b < 32; b++) hash[b] = Math.floor(random() * 256);
    const winner = winningSquare(hash);
    const rule = typeof options.payoutRule === 'function' ? options.payoutRule(i) : (options.payoutRule ?? 'parimutuel');
    const totals = rule === 'returns' ? settleReturns(deployed, winner) : settleRound(deployed, winner);
    const base: KnownRound = {
      id: firstId + i,
      deployed,
      count: miners,
      winningSquare: winner,
      totalDeployed: totals.totalDeployed,
      totalWinnings: totals.totalWinnings,
      totalVaulted: totals.totalVaulted,
      totalMiners: miners.reduce((a, b) => a + b, 0),
      motherlode: 0,
      topMinerReward: winner === null ? 0 : Math.floor(random() * 1e9),
      slotHash: Buffer.from(hash).toString('hex'),
      settledAt: new Date(start + i * 60_000).toISOString(),
      payoutRule: rule,
      oreReward: null,
      topMiner: null,
      split: null,
      productionCost: null,
      source: 'account',
      motherlodePool: null,
    };
    if (rule === 'parimutuel') {
      out[i] = base;
      continue;
    }
    const split = random() < 0.5;
    const miner = new Uint8Array(32);
    for (let b = 0; b < 32; b++) miner[b] = Math.floor(random() * 256);
    out[i] = {
      ...base,
      // The program zeroes a voided 952-byte round's deployed and records the refund.
      ...(winner === null ? { deployed: new Array<number>(25).fill(0) } : {}),
      ...motherlodeOf(winner !== null && random() < 1 / 500 ? Math.floor(random() * 50) * ORE : 0, firstId + i),
      topMinerReward: winner === null ? 0 : ORE,
      oreReward: winner === null ? 0 : ORE,
      topMiner: split ? layout.SPLIT_ADDRESS : bs58.encode(miner),
      split,
      productionCost: 250_000_000 + Math.floor(random() * 100_000_000),
    };
  }
  return out;
}

/** A round's motherlode payout and the pool it played for (0.2 ORE a round since the last hit, from its id; the payout when it hit). */
function motherlodeOf(motherlode: number, id: number): Pick<Round, 'motherlode' | 'motherlodePool'> {
  return { motherlode, motherlodePool: motherlode > 0 ? motherlode : (id % 500) * (ORE / 5) };
}

/**
 * Rounds as both the chain and the store know them: settledAt is when the indexer saw the
 * settlement, and the production cost is the board's when it saw it (a backfilled round
 * gets the board's cost at backfill: the chain keeps no past value); only whether one is
 * recorded is compared. The motherlode pool is known only for rounds watched live: left out.
 */
export function comparableRounds(rounds: readonly Round[]): (Omit<Round, 'settledAt' | 'productionCost' | 'motherlodePool'> & { productionCost: boolean })[] {
  return rounds.map(({ settledAt: _settledAt, productionCost, motherlodePool: _pool, ...rest }) => ({ ...rest, productionCost: productionCost !== null }));
}
