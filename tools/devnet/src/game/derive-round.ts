/**
 * One round of the game, derived from the seed alone: its deploys as the program applied
 * them, its reset (slot hash, totals, top miner, motherlode) and the account the reset
 * left. Everything random comes from the round's own streams (a hash of the seed and the
 * round id), so any round can be derived again on demand — that is how the devnet serves
 * millions of history transactions without keeping one. The only inputs carried from
 * round to round are the crowd's preferences, the motherlode pool and the slot the
 * previous reset happened at.
 */
import { createHash } from 'node:crypto';
import type { PayoutRule } from '@gridlab/contracts';
import bs58 from 'bs58';
import type { ResetFields } from '../program/events';
import { hitsMotherlode, isSplitByRng, isSplitSquare, parimutuelReset, returnsReset, rng as rngOf, topMinerSample, winningSquare } from '../program/round-rules';
import { roundV3, roundV4 } from '../program/state';
import { blockTimeOf } from './chain-time';
import { type EraStarts, type EventEra, type RoundLayout, eventEraOf, layoutOf, ruleOf } from './eras';
import { MINER_POOL, planRound } from './miner-model';
import { Prng } from './prng';

/** Local, not imported: a hot loop reading an imported binding pays a getter per access once transpiled to CommonJS. */
const SQUARES = 25;
/** Round accounts may be closed one day of slots after the round ends (`ONE_DAY_SLOTS`). */
export const EXPIRY_SLOTS = 216_000;
/** `ONE_ORE` (11 decimals): the prize the reset mints for the winning square. */
const ORE_REWARD = 100_000_000_000;
/** `SPLIT_ADDRESS` (`api/src/consts.rs`): the top miner of a round whose prize was split. */
const SPLIT_ADDRESS = bs58.decode('SpLiT11111111111111111111111111111111111112');
/** The 952-byte layout (the migration of 2026-06-25). */
const LAYOUT_V4 = 952;
/** The motherlode pool grows 0.2 ORE a round. */
const MOTHERLODE_STEP = 20_000_000_000;
/** The first deploy comes 1 to 3 slots after the reset. */
const FIRST_DEPLOY_DELAY = 3;

/** Squares each miner holds in the round being derived (scratch, zeroed after each round: no allocation per round). */
const HELD = new Int32Array(MINER_POOL);
const TOUCHED = new Uint16Array(MINER_POOL);

/** What stays fixed for a chain: its seed and its game settings at genesis. */
export interface RoundContext {
  readonly seed: number;
  readonly roundSlots: number;
  readonly intermissionSlots: number;
  readonly voidedRoundRate: number;
  readonly eras: EraStarts;
  /** Deploys a round has on average (mainnet: about 400). */
  readonly deploysPerRound?: number;
}

/** One deploy as it landed. */
export interface DeployEntry {
  readonly slot: number;
  readonly miner: number;
  /** The squares asked for (the instruction's mask). */
  readonly requested: number;
  /** The squares deployed to: those of `requested` the miner did not hold yet. */
  readonly deployed: number;
  readonly amount: number;
  /** Lamports the round account held before this deploy (stakes so far, rent aside). */
  readonly roundLamportsBefore: number;
}

/** A round's deploys as columns (`DeployEntry` by index): hundreds a round, thousands of rounds at genesis. */
export interface Deploys {
  readonly length: number;
  readonly slot: Float64Array;
  readonly miner: Uint16Array;
  readonly requested: Int32Array;
  readonly deployed: Int32Array;
  readonly amount: Float64Array;
  readonly roundLamportsBefore: Float64Array;
}

export function deployAt(deploys: Deploys, i: number): DeployEntry {
  if (i < 0 || i >= deploys.length) throw new RangeError(`no deploy ${i}`);
  return {
    slot: deploys.slot[i]!,
    miner: deploys.miner[i]!,
    requested: deploys.requested[i]!,
    deployed: deploys.deployed[i]!,
    amount: deploys.amount[i]!,
    roundLamportsBefore: deploys.roundLamportsBefore[i]!,
  };
}

export interface DerivedRound {
  readonly id: number;
  readonly layout: RoundLayout;
  readonly rule: PayoutRule;
  readonly events: EventEra;
  readonly startSlot: number;
  readonly endSlot: number;
  readonly resetSlot: number;
  readonly deploys: Deploys;
  readonly deployed: readonly number[];
  readonly count: readonly number[];
  /** Distinct miners with at least one square. */
  readonly miners: number;
  readonly slotHash: Uint8Array;
  readonly winningSquare: number | null;
  /** The drawn top miner (pool index), or null (split, nobody on the square, voided). */
  readonly topMiner: number | null;
  /** ORE base units the reset minted for the winning square (0: voided, or nobody on it). */
  readonly reward: number;
  /** The settled account as the reset left it. */
  readonly account: Uint8Array;
  /** The ResetEvent the reset logged (its layout is `events.resetLength`). */
  readonly reset: ResetFields;
  readonly poolAfter: number;
  /** Lamports per whole ORE this round cost (the board's EMA input), or null when nothing was minted. */
  readonly productionCost: number | null;
}

/** The per-round random streams: preference drift, deploy plan, settlement, first-deploy delay. */
export interface RoundStreams {
  readonly drift: Prng;
  readonly plan: Prng;
  readonly settle: Prng;
  readonly delay: number;
}

export function roundStreams(seed: number, id: number): RoundStreams {
  const h = createHash('sha512').update(`gridlab-devnet-round:${seed}:${id}`).digest();
  return {
    drift: Prng.fromBytes(h.subarray(0, 16)),
    plan: Prng.fromBytes(h.subarray(16, 32)),
    settle: Prng.fromBytes(h.subarray(32, 48)),
    delay: 1 + (h.readUInt32LE(48) % FIRST_DEPLOY_DELAY),
  };
}

/** Slots a round occupies, from the slot after the previous reset to its own reset. */
export function roundSpan(ctx: RoundContext, id: number): number {
  return roundStreams(ctx.seed, id).delay + ctx.roundSlots + ctx.intermissionSlots;
}

const minerKeys = new Map<number, Uint8Array>();
/** A stable 32-byte wallet for miner n of the pool (-1: the crank). */
export function minerKey(n: number): Uint8Array {
  let key = minerKeys.get(n);
  if (key === undefined) {
    key = new Uint8Array(createHash('sha256').update(`gridlab-devnet-miner-${n}`).digest());
    if (n >= -1 && n < MINER_POOL) minerKeys.set(n, key);
  }
  return key;
}

/** Who signs resets and closes, and pays for (so owns the rent of) every round account. */
export const CRANK_KEY = minerKey(-1);

/**
 * Derives round `id` from its streams, given the preferences after this round's drift,
 * the motherlode pool before it and the slot of the previous reset.
 */
export function deriveRound(ctx: RoundContext, id: number, weights: Float64Array, poolBefore: number, previousReset: number): DerivedRound {
  const streams = roundStreams(ctx.seed, id);
  const startSlot = previousReset + streams.delay;
  const endSlot = startSlot + ctx.roundSlots;
  const resetSlot = endSlot + ctx.intermissionSlots;
  const roundLayout = layoutOf(ctx.eras, id);
  const rule = ruleOf(ctx.eras, id);
  const events = eventEraOf(ctx.eras, id);

  const deployed = new Array<number>(SQUARES).fill(0);
  const count = new Array<number>(SQUARES).fill(0);
  const held = HELD;
  let miners = 0;
  const plan = planRound(weights, streams.plan, ctx.roundSlots, ctx.deploysPerRound);
  const n = plan.length;
  const deploys: Deploys = {
    length: n,
    slot: new Float64Array(n),
    miner: plan.miner,
    requested: plan.mask,
    deployed: new Int32Array(n),
    amount: plan.amount,
    roundLamportsBefore: new Float64Array(n),
  };
  let lamports = 0;
  for (let i = 0; i < n; i++) {
    const miner = plan.miner[i]!;
    const amount = plan.amount[i]!;
    const before = held[miner]!;
    // The program skips squares the miner already deployed to this round.
    const landed = plan.mask[i]! & ~before;
    if (before === 0) TOUCHED[miners++] = miner;
    held[miner] = before | landed;
    let squares = 0;
    for (let m = landed; m !== 0; m &= m - 1) {
      const s = 31 - Math.clz32(m & -m);
      deployed[s]! += amount;
      count[s]! += 1;
      squares++;
    }
    deploys.slot[i] = startSlot + plan.slotOffset[i]!;
    deploys.deployed[i] = landed;
    deploys.roundLamportsBefore[i] = lamports;
    lamports += amount * squares;
  }
  for (let i = 0; i < miners; i++) held[TOUCHED[i]!] = 0;

  const voided = streams.settle.next() < ctx.voidedRoundRate;
  const slotHash = voided ? new Uint8Array(32).fill(0xff) : streams.settle.bytes(32);
  const r = rngOf(slotHash);
  const winner = r === null ? null : winningSquare(r);
  const current = roundLayout === LAYOUT_V4;
  const total = deployed.reduce((a, b) => a + b, 0);
  // reset.rs: a voided round vaults nothing and wins nothing; a 952-byte one writes the refund as total_winnings.
  const totals =
    winner === null ? { totalVaulted: 0, totalWinnings: current ? total : 0 } : rule === 'returns' ? returnsReset(deployed, winner) : parimutuelReset(deployed, winner);
  const onWinner = winner === null ? 0 : deployed[winner]!;
  const reward = onWinner > 0 ? ORE_REWARD : 0;

  let topMiner: number | null = null;
  let topMinerBytes: Uint8Array = new Uint8Array(32);
  let motherlode = 0;
  let poolAfter = poolBefore;
  if (r !== null && winner !== null && reward > 0) {
    // Since 2026-07-29 the square decides (known before the round); before, a coin from the randomness.
    const split = rule === 'returns' ? isSplitSquare(id, winner) : isSplitByRng(r);
    if (split) topMinerBytes = SPLIT_ADDRESS;
    else {
      topMiner = drawTopMiner(deploys, winner, r, onWinner);
      topMinerBytes = minerKey(topMiner);
    }
    // The pool pays out before this round's 0.2 ORE goes into it.
    if (hitsMotherlode(r, current ? 500 : 625)) {
      motherlode = poolBefore;
      poolAfter = 0;
    }
    poolAfter += MOTHERLODE_STEP;
  }
  const totalMinted = reward + (reward > 0 ? MOTHERLODE_STEP : 0);
  const fields = {
    id,
    count,
    slotHash,
    expiresAt: endSlot + EXPIRY_SLOTS,
    rentPayer: CRANK_KEY,
    topMiner: topMinerBytes,
    motherlode,
    reward,
    totalMiners: miners,
    totalVaulted: totals.totalVaulted,
    totalWinnings: totals.totalWinnings,
  };
  // A voided round's refund: the v3 reset zeroes `total_deployed` (f2c552c), the 952-byte one `deployed` (bd617d1).
  const account = current
    ? roundV4({ ...fields, deployed: winner === null ? [] : deployed })
    : roundV3({ ...fields, deployed, totalDeployed: winner === null ? 0 : total });

  // The early exits of the parimutuel reset (voided, nobody on the winning square) logged 0 miners;
  // the returns reset's voided exit logs the round's miners (999e16e).
  const earlyExit = (winner === null && rule === 'parimutuel') || (rule === 'parimutuel' && onWinner === 0);
  const reset: ResetFields = {
    roundId: id,
    startSlot,
    endSlot,
    winningSquare: winner,
    // Until the reset verified the top miner (2026-06-09) it did not know it: v3 events carry zeros.
    topMiner: current ? topMinerBytes : new Uint8Array(32),
    miners: earlyExit ? 0 : winner === null || events.minersField === 'total_miners' ? miners : count[winner]!,
    motherlode,
    // Logged after the refund zeroed it (`total_deployed` in v3, `deployed` since).
    totalDeployed: winner === null ? 0 : total,
    totalVaulted: totals.totalVaulted,
    totalWinnings: totals.totalWinnings,
    totalMinted,
    ts: blockTimeOf(resetSlot),
    rng: r ?? 0n,
    deployedWinningSquare: onWinner,
  };
  return {
    id,
    layout: roundLayout,
    rule,
    events,
    startSlot,
    endSlot,
    resetSlot,
    deploys,
    deployed,
    count,
    miners,
    slotHash,
    winningSquare: winner,
    topMiner,
    reward,
    account,
    reset,
    poolAfter,
    // reset.rs: production_cost = total_vaulted * ONE_ORE / total_mint_amount (u128), when anything was minted.
    productionCost: current && totalMinted > 0 ? Number((BigInt(totals.totalVaulted) * BigInt(ORE_REWARD)) / BigInt(totalMinted)) : null,
  };
}

/**
 * The top miner of the winning square as the program draws it: a sample
 * `reverse_bits(rng) % deployed[w]` falls in one miner's `[cumulative, cumulative + stake)`,
 * cumulative being the square's total when that miner deployed to it.
 */
export function drawTopMiner(deploys: Deploys, square: number, rng: bigint, total: number): number {
  const sample = Number(topMinerSample(rng, total));
  const bit = 1 << square;
  let cumulative = 0;
  let last = -1;
  for (let i = 0; i < deploys.length; i++) {
    if ((deploys.deployed[i]! & bit) === 0) continue;
    cumulative += deploys.amount[i]!;
    last = deploys.miner[i]!;
    if (sample < cumulative) return last;
  }
  return last;
}
