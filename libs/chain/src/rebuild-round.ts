/**
 * A settled round rebuilt from its transactions, for rounds whose account is gone (the
 * program lets anyone close a round a day after it ended): the ResetEvent gives the
 * outcome and totals, the DeployEvents (or, before they existed, the Deploy instructions)
 * summed per square give `deployed` and `count`, and reset's `var value:` log gives the
 * slot hash. The result is the account the round had, so it goes through the same rule
 * inference and stored form as a round read from the chain.
 *
 * A rebuilt round is checked against its ResetEvent: the winning square and `rng` from
 * the logged slot hash, `total_deployed`, `deployed_winning_square`, and the miners
 * field; one that does not add up is refused with the reason, never stored.
 */
import { ORE_BASE_UNITS, ROUND_LEN_CURRENT, ROUND_LEN_V3, ROUND_LEN_V3_LEGACY, SPLIT_ADDRESS, SQUARES } from './ore-layout';
import type { RoundAccount, RoundLayout } from './round.codec';
import { isVoidedSlotHash, slotHashRng, winningSquare } from './rng';
import type { DeployEvent, ResetEvent } from './events';
import type { OreTransaction, SkipReason } from './transactions';

/** A round account may be closed this many slots after the round ends (`ONE_DAY_SLOTS`). */
export const ROUND_EXPIRY_SLOTS = 216_000;
const SYSTEM_ADDRESS = '11111111111111111111111111111111';
const LAYOUTS: readonly number[] = [ROUND_LEN_V3_LEGACY, ROUND_LEN_V3, ROUND_LEN_CURRENT];

export interface RebuildInput {
  readonly roundId: number;
  /** The round's PDA (its creation, by the previous round's reset, tells its layout). */
  readonly roundAddress: string;
  /**
   * Every transaction that touched the round's account, oldest first (the order they ran
   * in). Only those up to the reset's slot are read: nothing after it changes the round.
   */
  readonly transactions: readonly OreTransaction[];
  /** The layout to assume when no transaction shows the account's creation (a neighbour's). */
  readonly fallbackLayout: RoundLayout | null;
}

export type RebuildRefusal =
  /** No successful transaction carries the round's ResetEvent: it has not settled (or the RPC lost it). */
  | 'not_settled'
  /** The reset did not log its randomness (`var value:`), so the slot hash is not known. */
  | 'no_randomness'
  /** Neither the account's creation nor a neighbour says which layout the round had. */
  | 'unknown_layout'
  /** The deploys and the ResetEvent do not add up. */
  | 'mismatch';

/** What the rebuild did not read: parts of its transactions that did not decode, by reason. */
interface SkippedParts {
  readonly skipped: number;
  readonly skippedReasons: Readonly<Partial<Record<SkipReason, number>>>;
}

export type RebuildResult = (
  | {
      readonly ok: true;
      readonly account: RoundAccount;
      /** The reset's block time, or null when the RPC did not give one. */
      readonly settledAt: Date | null;
      /** Deploys summed (events or instructions). */
      readonly deploys: number;
      readonly from: 'events' | 'instructions';
    }
  | { readonly ok: false; readonly reason: RebuildRefusal; readonly detail: string }
) &
  SkippedParts;

interface Tally {
  readonly deployed: number[];
  readonly count: number[];
  /** Distinct miners who deployed at least one square. */
  readonly miners: number;
  readonly deploys: number;
}

/** Rebuilds round `roundId` from its transactions (pure). */
export function rebuildRound(input: RebuildInput): RebuildResult {
  const { roundId } = input;
  const successful = input.transactions.filter((t) => !t.failed);
  let skipped = skippedParts(successful);
  const refuse = (reason: RebuildRefusal, detail: string): RebuildResult => ({ ok: false, reason, detail, ...skipped });
  let reset: ResetEvent | undefined;
  let resetTx: OreTransaction | undefined;
  let resets = 0;
  for (const tx of successful) {
    for (const e of tx.events) {
      if (e.kind !== 'reset' || e.roundId !== roundId) continue;
      resets++;
      reset = e;
      resetTx = tx;
    }
  }
  if (reset === undefined || resetTx === undefined) return refuse('not_settled', `round ${roundId}: no transaction carries its ResetEvent`);
  // A round is reset once: two events claiming to be its reset mean one is not the program's.
  if (resets > 1) return refuse('mismatch', `round ${roundId}: ${resets} ResetEvents claim to be its reset`);
  const voided = reset.winningSquare === null;
  // The round ended at its reset: whatever names it later (its close, anyone's listing) says nothing of it.
  const resetSlot = resetTx.slot;
  const ok = successful.filter((t) => t.slot <= resetSlot);
  skipped = skippedParts(ok);
  const slotHash = resetTx.varValue ?? (voided ? new Uint8Array(32).fill(0xff) : null);
  if (slotHash === null) return refuse('no_randomness', `round ${roundId}: the reset transaction ${resetTx.signature} logs no var value`);

  const layout = layoutOf(ok, input.roundAddress) ?? nextRoundLayout(resetTx) ?? input.fallbackLayout;
  if (layout === null) return refuse('unknown_layout', `round ${roundId}: no transaction shows the account's creation and no neighbour's layout is known`);

  const events = ok.flatMap((t) => t.events.filter((e): e is DeployEvent => e.kind === 'deploy' && e.roundId === roundId));
  const tally = events.length > 0 ? tallyEvents(events) : tallyInstructions(ok, input.roundAddress);
  if (typeof tally === 'string') return refuse('mismatch', `round ${roundId}: ${tally}`);

  const mismatch = check(reset, slotHash, tally);
  if (mismatch !== null) return refuse('mismatch', `round ${roundId}: ${mismatch}`);
  return {
    ok: true,
    account: toAccount(roundId, layout, reset, slotHash, tally),
    settledAt: resetTx.blockTime === null ? null : new Date(resetTx.blockTime * 1000),
    deploys: tally.deploys,
    from: events.length > 0 ? 'events' : 'instructions',
    ...skipped,
  };
}

function skippedParts(transactions: readonly OreTransaction[]): SkippedParts {
  const skippedReasons: Partial<Record<SkipReason, number>> = {};
  let skipped = 0;
  for (const tx of transactions) {
    for (const s of tx.skipped) {
      skipped++;
      skippedReasons[s.reason] = (skippedReasons[s.reason] ?? 0) + 1;
    }
  }
  return { skipped, skippedReasons };
}

/**
 * The layout of the round the reset created (the next one): a round's own when no
 * transaction shows its creation (the first round, created when the program started),
 * since layouts change only at a migration.
 */
function nextRoundLayout(reset: OreTransaction): RoundLayout | null {
  for (const created of reset.created) if (LAYOUTS.includes(created.space)) return created.space as RoundLayout;
  return null;
}

function layoutOf(transactions: readonly OreTransaction[], roundAddress: string): RoundLayout | null {
  for (const tx of transactions) {
    for (const created of tx.created) {
      if (created.address === roundAddress && LAYOUTS.includes(created.space)) return created.space as RoundLayout;
    }
  }
  return null;
}

/**
 * Sums deploys the way the program applies them: a miner's square already deployed to
 * this round is skipped, so only its first deploy on a square counts. (Since 2025-12-30
 * the event's mask holds only the squares deployed; before, the squares asked for.)
 */
function tallyEvents(events: readonly DeployEvent[]): Tally | string {
  const t = newTally();
  const held = new Map<string, number>();
  for (const e of events) {
    const effective = apply(t, held, e.authority, e.mask, e.amount);
    if (popcount(effective) !== e.totalSquares) {
      return `a deploy of ${e.authority} deployed ${e.totalSquares} squares but its mask gives ${popcount(effective)} new ones`;
    }
  }
  return finish(t, held);
}

/**
 * Before the DeployEvent (2025-12-08): the successful Deploy instructions whose round
 * (the account where the program reads it) is this one. A call that merely lists the
 * round's address elsewhere among its accounts deployed to another round.
 */
function tallyInstructions(transactions: readonly OreTransaction[], roundAddress: string): Tally {
  const t = newTally();
  const held = new Map<string, number>();
  for (const tx of transactions) {
    for (const d of tx.deploys) if (d.rounds.includes(roundAddress)) apply(t, held, d.authority, d.args.squares, d.args.amount);
  }
  return finish(t, held);
}

function newTally(): { deployed: number[]; count: number[]; deploys: number } {
  return { deployed: new Array<number>(SQUARES).fill(0), count: new Array<number>(SQUARES).fill(0), deploys: 0 };
}

function apply(t: { deployed: number[]; count: number[]; deploys: number }, held: Map<string, number>, authority: string, mask: number, amount: number): number {
  const before = held.get(authority) ?? 0;
  const effective = amount > 0 ? mask & ~before : 0;
  t.deploys++;
  if (effective === 0) {
    if (!held.has(authority)) held.set(authority, 0);
    return 0;
  }
  held.set(authority, before | effective);
  for (let s = 0; s < SQUARES; s++) {
    if ((effective & (1 << s)) === 0) continue;
    t.deployed[s]! += amount;
    t.count[s]! += 1;
  }
  return effective;
}

function finish(t: { deployed: number[]; count: number[]; deploys: number }, held: Map<string, number>): Tally {
  let miners = 0;
  for (const squares of held.values()) if (squares !== 0) miners++;
  return { ...t, miners };
}

function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/** What the ResetEvent says that the rebuilt round must agree with; null when it does. */
function check(reset: ResetEvent, slotHash: Uint8Array, t: Tally): string | null {
  const square = winningSquare(slotHash);
  if (square !== reset.winningSquare) return `the logged slot hash gives winning square ${square}, the ResetEvent ${reset.winningSquare}`;
  if (reset.rng !== null && square !== null && slotHashRng(slotHash) !== reset.rng) return `the logged slot hash gives rng ${slotHashRng(slotHash)}, the ResetEvent ${reset.rng}`;
  const total = t.deployed.reduce((a, b) => a + b, 0);
  // A voided round's event may count its stakes before or after the refund zeroed them.
  if (reset.totalDeployed !== total && !(square === null && reset.totalDeployed === 0)) {
    return `deploys sum to ${total} lamports, the ResetEvent's total_deployed is ${reset.totalDeployed}`;
  }
  if (square !== null && reset.deployedWinningSquare !== null && reset.deployedWinningSquare !== t.deployed[square]) {
    return `deploys put ${t.deployed[square]} on the winning square, the ResetEvent's deployed_winning_square is ${reset.deployedWinningSquare}`;
  }
  if (reset.minersField !== null && square !== null) {
    // `num_winners` (the winning square's miners) until 2026-07-24, `total_miners` since.
    const onWinner = t.count[square]!;
    if (reset.minersField !== t.miners && reset.minersField !== onWinner) {
      return `deploys give ${t.miners} miners (${onWinner} on the winning square), the ResetEvent's miners field is ${reset.minersField}`;
    }
  }
  return null;
}

/**
 * The account as the program left it after the reset. What the chain no longer holds is
 * left empty: `mass` (never written by the program), the rent payer, and the board's
 * production cost (which is not part of the account).
 */
function toAccount(id: number, layout: RoundLayout, reset: ResetEvent, slotHash: Uint8Array, t: Tally): RoundAccount {
  const current = layout === ROUND_LEN_CURRENT;
  const voided = isVoidedSlotHash(slotHash);
  // The prize the reset minted for the winning square: 1 ORE, less near the supply cap; the rest went to the motherlode pool.
  const reward = Math.min(reset.totalMinted, ORE_BASE_UNITS);
  const total = t.deployed.reduce((a, b) => a + b, 0);
  return {
    layout,
    id,
    // The program zeroes a voided 952-byte round's stakes and writes the refund as total_winnings.
    deployed: current && voided ? new Array<number>(SQUARES).fill(0) : t.deployed,
    slotHash,
    count: t.count,
    expiresAt: reset.endSlot + ROUND_EXPIRY_SLOTS,
    motherlode: reset.motherlode ?? 0,
    rentPayer: SYSTEM_ADDRESS,
    topMiner: reset.topMiner,
    topMinerReward: reward,
    totalDeployed: current && voided ? reset.totalWinnings : total,
    totalMiners: layout === ROUND_LEN_V3_LEGACY ? null : t.miners,
    totalVaulted: reset.totalVaulted,
    totalWinnings: reset.totalWinnings,
    mass: null,
    rewards: current ? [reward, ...new Array<number>(SQUARES - 1).fill(0)] : null,
    split: current ? reset.topMiner === SPLIT_ADDRESS : null,
  };
}
