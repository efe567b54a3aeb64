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
import { type DeployRules, RULES_2025_12, RULES_2026_01, deploy as programDeploy } from '../program/deploy';
import type { ResetFields } from '../program/events';
import { CHECKPOINT_FEE, newMiner } from '../program/miner';
import { hitsMotherlode, isSplitByRng, isSplitSquare, parimutuelReset, returnsReset, rng as rngOf, topMinerSample, winningSquare } from '../program/round-rules';
import { roundV3, roundV4 } from '../program/state';
import { blockTimeOf } from './chain-time';
import { type EraStarts, type EventEra, type RoundLayout, eventEraOf, layoutOf, ruleOf } from './eras';
import { EXECUTOR_KEY, automationsOf } from './automations';
import { DEFAULT_DEPLOYS, planRound } from './miner-model';
import { MINER_POOL, populationOf } from './population';
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
/** The Miner account an automated deploy works on (scratch: only what the deploy leaves in the round is kept). */
const SCRATCH_MINER = newMiner(new Uint8Array(32));
/** Whether each automated wallet's automation is open in the round being derived (scratch). */
const OPEN = new Uint8Array(MINER_POOL);

/** What stays fixed for a chain: its seed and its game settings at genesis. */
export interface RoundContext {
  readonly seed: number;
  readonly roundSlots: number;
  readonly intermissionSlots: number;
  readonly voidedRoundRate: number;
  readonly eras: EraStarts;
  /** Deploys a round has on average (mainnet: about 400). */
  readonly deploysPerRound?: number;
  /** Share of the deploys that automations make, their executor signing (absent: none). */
  readonly automatedShare?: number;
}

/** One deploy as it landed. */
export interface DeployEntry {
  readonly slot: number;
  readonly miner: number;
  /** The instruction's mask (for a manual deploy the squares asked for; an automated one's are the automation's). */
  readonly requested: number;
  /** The squares deployed to: those asked for that the miner did not hold yet (and, automated, that its balance paid). */
  readonly deployed: number;
  /** Lamports a square got (an automated deploy: the automation's amount). */
  readonly amount: number;
  /** Lamports the round account held before this deploy (stakes so far, rent aside). */
  readonly roundLamportsBefore: number;
  /** Signed by the executor for the miner's automation. */
  readonly automated: boolean;
  /** The instruction's amount argument. */
  readonly argAmount: number;
  /** Automated: the strategy (0 Random, 1 Preferred), the automation's balance before, the fee the executor took, whether the deploy closed it, and whether the program returned before logging (no DeployEvent). */
  readonly strategy: number;
  readonly automationBefore: number;
  readonly executorFee: number;
  readonly closed: boolean;
  readonly silent: boolean;
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
  /** Bit 0: automated; bit 1: closed its automation; bit 2: silent (no DeployEvent); bits 3+: the strategy. */
  readonly flags: Uint8Array;
  readonly argAmount: Float64Array;
  readonly automationBefore: Float64Array;
  readonly executorFee: Float64Array;
}

const AUTOMATED = 1;
const CLOSED = 2;
const SILENT = 4;

export function deployAt(deploys: Deploys, i: number): DeployEntry {
  if (i < 0 || i >= deploys.length) throw new RangeError(`no deploy ${i}`);
  const flags = deploys.flags[i]!;
  return {
    slot: deploys.slot[i]!,
    miner: deploys.miner[i]!,
    requested: deploys.requested[i]!,
    deployed: deploys.deployed[i]!,
    amount: deploys.amount[i]!,
    roundLamportsBefore: deploys.roundLamportsBefore[i]!,
    automated: (flags & AUTOMATED) !== 0,
    argAmount: deploys.argAmount[i]!,
    strategy: flags >> 3,
    automationBefore: deploys.automationBefore[i]!,
    executorFee: deploys.executorFee[i]!,
    closed: (flags & CLOSED) !== 0,
    silent: (flags & SILENT) !== 0,
  };
}

/**
 * How the program of a round's era treats automated deploys: 12274aa's until the deployed
 * mask (2025-12-30; the fee rule's change of 12-16 cannot show: an automation deploys once a
 * round), 7d18eda's until the 2026-06-25 migration, then the close-first shortfall of
 * 659f46d, and with the `returns` rule (2026-07-29) the Random mask of c3ee5df.
 */
function deployRulesOf(layout: RoundLayout, rule: PayoutRule, events: EventEra): DeployRules {
  if (layout !== LAYOUT_V4) return events.deployEvent === 'deployed' ? RULES_2026_01 : RULES_2025_12;
  return { ...RULES_2026_01, shortfall: 'close-first', random: rule === 'returns' ? 'popcount' : 'low-byte' };
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
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
  const meanDeploys = ctx.deploysPerRound ?? DEFAULT_DEPLOYS;
  const share = ctx.automatedShare ?? 0;
  const population = populationOf(ctx.seed, meanDeploys, share);
  // The automations deploy their share; the crowd plays the rest by hand.
  const automations = share > 0 ? automationsOf(population, ctx.seed, ctx.roundSlots, EXECUTOR_KEY) : null;
  const plan = planRound(population, weights, streams.plan, ctx.roundSlots);
  const wallets = automations?.wallets ?? [];
  // Automated wallets whose automation is open this round: their deploys are the executor's, never their own.
  const open = OPEN;
  let opened = 0;
  if (automations !== null) for (let a = 0; a < wallets.length; a++) opened += open[a] = automations.isOpen(a, id) ? 1 : 0;
  const cap = plan.length + opened;
  const deploys = {
    length: 0,
    slot: new Float64Array(cap),
    miner: new Uint16Array(cap),
    requested: new Int32Array(cap),
    deployed: new Int32Array(cap),
    amount: new Float64Array(cap),
    roundLamportsBefore: new Float64Array(cap),
    flags: new Uint8Array(cap),
    argAmount: new Float64Array(cap),
    automationBefore: new Float64Array(cap),
    executorFee: new Float64Array(cap),
  };
  const rules = automations === null ? null : deployRulesOf(roundLayout, rule, events);
  const roundState = { id, deployed, count, totalDeployed: 0, totalMiners: 0 };
  let n = 0;
  let lamports = 0;
  const land = (miner: number, landed: number, amount: number, slotOffset: number): void => {
    if (held[miner] === 0 && landed !== 0) TOUCHED[miners++] = miner;
    held[miner]! |= landed;
    deploys.slot[n] = startSlot + slotOffset;
    deploys.miner[n] = miner;
    deploys.deployed[n] = landed;
    deploys.amount[n] = amount;
    deploys.roundLamportsBefore[n] = lamports;
    lamports += amount * popcount(landed);
  };
  let a = 0;
  for (let i = 0; i <= plan.length; i++) {
    // Merge: the executor's deploys at their slot offsets, before the crowd's of the same slot.
    const planOffset = i < plan.length ? plan.slotOffset[i]! : Number.POSITIVE_INFINITY;
    for (; a < wallets.length && wallets[a]!.slotOffset <= planOffset; a++) {
      if (open[a] === 0) continue;
      const authority = minerKey(wallets[a]!.miner);
      const at = automations!.at(a, id, authority)!;
      const before = at.account.balance;
      // Automate opened the Miner and paid its checkpoint fee; it checkpointed its last round, and
      // holds nothing in this one (it cannot deploy by hand while its automation is open).
      const miner = SCRATCH_MINER;
      miner.authority = authority;
      miner.deployed.fill(0);
      miner.roundId = id;
      miner.checkpointId = id - 1;
      miner.checkpointFee = CHECKPOINT_FEE;
      // What the executor sends: the automation's amount and its mask as squares (the program reads neither).
      const argMask = at.account.mask % 2 ** SQUARES;
      const outcome = programDeploy(rules!, { signer: EXECUTOR_KEY, authority, amount: at.account.amount, mask: argMask, miner, automation: at.account, automationSpent: at.phase === 0 ? 0 : 1, round: roundState, unixTimestamp: 0 });
      // programDeploy added the stakes to `deployed`/`count`; land() records the deploy and the miner.
      land(wallets[a]!.miner, outcome.squares, outcome.amount, wallets[a]!.slotOffset);
      deploys.requested[n] = argMask;
      deploys.flags[n] = AUTOMATED | (outcome.automationClosed ? CLOSED : 0) | (outcome.event === null ? SILENT : 0) | (at.wallet.strategy << 3);
      deploys.argAmount[n] = at.account.amount;
      deploys.automationBefore[n] = before;
      deploys.executorFee[n] = outcome.executorFee;
      n++;
    }
    if (i === plan.length) break;
    const miner = plan.miner[i]!;
    const w = automations === null ? -1 : automations.byMiner[miner]!;
    if (w >= 0 && open[w] === 1) continue;
    const amount = plan.amount[i]!;
    // The program skips squares the miner already deployed to this round.
    const landed = plan.mask[i]! & ~held[miner]!;
    for (let m = landed; m !== 0; m &= m - 1) {
      const sq = 31 - Math.clz32(m & -m);
      deployed[sq]! += amount;
      count[sq]! += 1;
    }
    land(miner, landed, amount, plan.slotOffset[i]!);
    deploys.requested[n] = plan.mask[i]!;
    deploys.argAmount[n] = amount;
    n++;
  }
  deploys.length = n;
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
