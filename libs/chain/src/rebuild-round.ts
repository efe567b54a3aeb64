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
 *
 * Some deploys do not show their squares: until the program logged the squares taken
 * (2025-12-30; every round whose ResetEvent is 136 bytes or more is later), an automated
 * deploy took its squares from the miner's Automation account, not from the instruction
 * or the event. Such a round is rebuilt *partly*: what the ResetEvent and the deploys
 * that do show establish is kept (the totals, the outcome, the winning square's stake
 * inverted from the reset's arithmetic, its miners), every other per-square figure is
 * unknown, never guessed.
 */
import { ORE_BASE_UNITS } from '@gridlab/contracts';
import { ALL_SQUARES, ROUND_LEN_CURRENT, ROUND_LEN_V3, ROUND_LEN_V3_LEGACY, SPLIT_ADDRESS, SQUARES } from './ore-layout';
import type { RoundAccount, RoundLayout } from './round.codec';
import { isVoidedSlotHash, slotHashRng, winningSquare } from './rng';
import type { ResetEvent } from './events';
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
  /** List every deploy as it ran (`applied`): a miner's ledger needs them, the round alone does not. */
  readonly listDeploys?: boolean;
}

export type RebuildRefusal =
  /** No successful transaction carries the round's ResetEvent: it has not settled (or the RPC lost it). */
  | 'not_settled'
  /** The reset did not log its randomness (`var value:`), so the slot hash is not known. */
  | 'no_randomness'
  /** Neither the account's creation nor a neighbour says which layout the round had. */
  | 'unknown_layout'
  /** The deploys and the ResetEvent do not add up. */
  | 'mismatch'
  /** A voided round some of whose deploys do not show what they staked: its total is not known. */
  | 'unprovable';

/** The figures of a partly rebuilt round that its transactions do not establish. */
export interface UnknownFigures {
  readonly deployed: number;
  readonly count: number;
  readonly totalMiners: boolean;
}

/** One deploy of the round, in the order it ran, as the program applied it. */
export interface RoundDeploy {
  readonly authority: string;
  /** The authority, or the automation's executor that signed for it. */
  readonly signer: string;
  /** null: manual; a number: the automation's strategy as its event logged it; `automated`: an automation's, before events logged which. */
  readonly strategy: number | 'automated' | null;
  readonly slot: number;
  /** Slots from its deploy to the round's end (`end_slot - slot`: the board's end, as the reset logged it). */
  readonly slotsLeft: number;
  readonly signature: string;
  /** Squares it took (bit i = square i: a square the miner already held is skipped); null where the chain does not show them. */
  readonly squares: number | null;
  /** Lamports per square; null where not shown. */
  readonly amount: number | null;
}

const ALL_KNOWN: UnknownFigures = { deployed: 0, count: 0, totalMiners: false };

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
      /**
       * What the transactions do not establish: squares whose `deployed` or `count` is not
       * known (bit i = square i; the account holds 0 there), and whether `total_miners`
       * is. All zero and true for a round every deploy of which shows its squares.
       */
      readonly unknown: UnknownFigures;
      /** Every deploy of the round in the order it ran: who, when, what it took (empty unless `listDeploys`). */
      readonly applied: readonly RoundDeploy[];
    }
  | { readonly ok: false; readonly reason: RebuildRefusal; readonly detail: string }
) &
  SkippedParts;

interface Tally {
  /** Per square, what the deploys that show their squares put there. */
  readonly deployed: number[];
  readonly count: number[];
  /** Distinct miners who deployed at least one square (null: not known). */
  readonly miners: number | null;
  readonly deploys: number;
  /** Deploys whose squares are not shown (null: none). */
  readonly hidden: HiddenDeploys | null;
  readonly applied: readonly RoundDeploy[];
}

/** What the deploys that do not show their squares staked. */
interface HiddenDeploys {
  readonly deploys: number;
  /** Lamports they staked, when their events say (amount x squares); null before events. */
  readonly lamports: number | null;
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

  const withEvents = ok.some((t) => t.events.some((e) => e.kind === 'deploy' && e.roundId === roundId));
  // The 136-byte ResetEvent (2026-01-13) came after the DeployEvent's mask became the squares taken (2025-12-30).
  const masksShowSquares = reset.length >= 136;
  const list = input.listDeploys === true;
  const tally = withEvents ? tallyEvents(ok, roundId, masksShowSquares, newTally(list, reset.endSlot)) : tallyInstructions(ok, input.roundAddress, newTally(list, reset.endSlot));
  if (typeof tally === 'string') return refuse('mismatch', `round ${roundId}: ${tally}`);
  const settledAt = resetTx.blockTime === null ? null : new Date(resetTx.blockTime * 1000);
  const from = withEvents ? 'events' : 'instructions';

  if (tally.hidden !== null) {
    const partial = partlyKnown(reset, slotHash, layout, tally);
    if (typeof partial === 'string') return refuse(partial.startsWith('unprovable:') ? 'unprovable' : 'mismatch', `round ${roundId}: ${partial.replace(/^unprovable: /, '')}`);
    return { ok: true, account: toAccount(roundId, layout, reset, slotHash, partial.tally, partial.totalDeployed), settledAt, deploys: tally.deploys, from, unknown: partial.unknown, applied: tally.applied, ...skipped };
  }
  const mismatch = check(reset, slotHash, tally);
  if (mismatch !== null) return refuse('mismatch', `round ${roundId}: ${mismatch}`);
  return { ok: true, account: toAccount(roundId, layout, reset, slotHash, tally), settledAt, deploys: tally.deploys, from, unknown: ALL_KNOWN, applied: tally.applied, ...skipped };
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
 * the event's mask holds only the squares deployed; before, the squares asked for, or for
 * an automated deploy whatever its executor passed: the event's `amount` and
 * `total_squares` are still what it staked.)
 */
function tallyEvents(transactions: readonly OreTransaction[], roundId: number, masksShowSquares: boolean, t: TallyBuilder): Tally | string {
  for (const tx of transactions) {
    for (const e of tx.events) {
      if (e.kind !== 'deploy' || e.roundId !== roundId) continue;
      if (e.strategy !== null && !masksShowSquares) {
        // An automated deploy that took no square hides nothing.
        if (e.totalSquares === 0) t.apply(e.authority, 0, e.amount, e.signer, e.strategy, tx);
        else t.hide(e.authority, true, e.amount * e.totalSquares, e.amount, e.signer, e.strategy, tx);
        continue;
      }
      if (t.isHidden(e.authority)) {
        // Which of the squares it asked for this miner already held is not known.
        t.hide(e.authority, e.totalSquares > 0, e.amount * e.totalSquares, e.amount, e.signer, e.strategy, tx);
        continue;
      }
      const effective = t.apply(e.authority, e.mask, e.amount, e.signer, e.strategy, tx);
      if (popcount(effective) !== e.totalSquares) {
        return `a deploy of ${e.authority} deployed ${e.totalSquares} squares but its mask gives ${popcount(effective)} new ones`;
      }
    }
  }
  return t.finish();
}

/**
 * Before the DeployEvent (2025-12-08): the successful Deploy instructions whose round
 * (the account where the program reads it) is this one. A call that merely lists the
 * round's address elsewhere among its accounts deployed to another round. An automated
 * call's squares are not shown; what it staked is the round account's gain in its
 * transaction, when that is its only deploy to the round (the automation pays the round
 * directly, and nothing else pays a round before its reset).
 */
function tallyInstructions(transactions: readonly OreTransaction[], roundAddress: string, t: TallyBuilder): Tally {
  for (const tx of transactions) {
    let calls = 0;
    for (const d of tx.deploys) if (d.rounds.includes(roundAddress)) calls++;
    for (const d of tx.deploys) {
      if (!d.rounds.includes(roundAddress)) continue;
      const strategy = d.automated ? 'automated' : null;
      if (!d.automated && !t.isHidden(d.authority)) {
        t.apply(d.authority, d.args.squares, d.args.amount, d.signer, strategy, tx);
        continue;
      }
      const gain = d.roundGains[d.rounds.indexOf(roundAddress)] ?? null;
      const staked = calls === 1 && gain !== null ? Math.max(0, gain) : null;
      // A deploy that moved nothing into the round took no square: it hides nothing.
      if (staked === 0) t.apply(d.authority, 0, 0, d.signer, strategy, tx);
      else t.hide(d.authority, staked === null ? null : staked > 0, staked, d.automated ? null : d.args.amount, d.signer, strategy, tx);
    }
  }
  return t.finish();
}

/** A round's deploys summed in the order they ran, with the miners whose squares are not all shown. */
class TallyBuilder {
  readonly deployed = new Array<number>(SQUARES).fill(0);
  readonly count = new Array<number>(SQUARES).fill(0);
  readonly applied: RoundDeploy[] = [];
  deploys = 0;
  /** Squares each miner holds, from the deploys that show them. */
  private readonly held = new Map<string, number>();
  /** Miners with a deploy that does not show its squares: true once it is known to have taken one, null if that is not known. */
  private readonly hiddenMiners = new Map<string, boolean | null>();
  private hiddenDeploys = 0;
  private hiddenLamports: number | null = 0;

  /** `list`: keep every deploy in `applied` (a record each, which the history fill alone does not need). */
  constructor(
    private readonly list: boolean,
    /** The round's end slot, which each listed deploy's `slotsLeft` counts to. */
    private readonly endSlot: number,
  ) {}

  isHidden(authority: string): boolean {
    return this.hiddenMiners.has(authority);
  }

  /** A deploy that shows its squares; returns the squares it took. */
  apply(authority: string, mask: number, amount: number, signer: string, strategy: RoundDeploy['strategy'], tx: OreTransaction): number {
    const before = this.held.get(authority) ?? 0;
    const effective = amount > 0 ? mask & ~before : 0;
    this.deploys++;
    if (this.list) this.applied.push({ authority, signer, strategy, slot: tx.slot, slotsLeft: this.endSlot - tx.slot, signature: tx.signature, squares: effective, amount });
    if (effective === 0) {
      if (!this.held.has(authority)) this.held.set(authority, 0);
      return 0;
    }
    this.held.set(authority, before | effective);
    for (let s = 0; s < SQUARES; s++) {
      if ((effective & (1 << s)) === 0) continue;
      this.deployed[s]! += amount;
      this.count[s]! += 1;
    }
    return effective;
  }

  /** A deploy that does not show its squares: whether it took any (null: not shown), what it staked and per square (null: not shown). */
  hide(authority: string, tookSquares: boolean | null, lamports: number | null, amount: number | null, signer: string, strategy: RoundDeploy['strategy'], tx: OreTransaction): void {
    this.deploys++;
    if (this.list) this.applied.push({ authority, signer, strategy, slot: tx.slot, slotsLeft: this.endSlot - tx.slot, signature: tx.signature, squares: null, amount });
    this.hiddenDeploys++;
    this.hiddenLamports = this.hiddenLamports === null || lamports === null ? null : this.hiddenLamports + lamports;
    const known = this.hiddenMiners.get(authority);
    this.hiddenMiners.set(authority, known === true || tookSquares === true ? true : known === null || tookSquares === null ? null : false);
  }

  finish(): Tally {
    let miners: number | null = 0;
    for (const [authority, squares] of this.held) if (squares !== 0 && !this.hiddenMiners.has(authority)) miners++;
    for (const [authority, took] of this.hiddenMiners) {
      if (miners === null) break;
      if (took === null) miners = (this.held.get(authority) ?? 0) !== 0 ? miners + 1 : null;
      else if (took || (this.held.get(authority) ?? 0) !== 0) miners++;
    }
    const hidden = this.hiddenDeploys === 0 ? null : { deploys: this.hiddenDeploys, lamports: this.hiddenLamports };
    return { deployed: this.deployed, count: this.count, deploys: this.deploys, miners, hidden, applied: this.applied };
  }
}

function newTally(list: boolean, endSlot: number): TallyBuilder {
  return new TallyBuilder(list, endSlot);
}

export function popcount(mask: number): number {
  let n = 0;
  for (let m = mask; m !== 0; m &= m - 1) n++;
  return n;
}

/** The index of a non-zero mask's lowest set bit: `for (m = mask; m !== 0; m &= m - 1)` visits its squares in order, and no other. */
export function lowestBit(mask: number): number {
  return 31 - Math.clz32(mask & -mask);
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
 * A round some of whose deploys do not show their squares (only v3 rounds: the DeployEvent
 * logs the squares taken since 2025-12-30). What its ResetEvent still establishes, by the
 * v3 parimutuel reset (`program/src/reset.rs` at 12274aa, lines 126-186):
 * - nobody on the winning square: `total_vaulted = total - total/100`, nothing won,
 *   `num_winners` 0;
 * - else `A = total_winnings + total_vaulted = L - L/100`, with L the other squares'
 *   SOL, and `total_vaulted = A/10`; L, so the winning square's stake `total - L`,
 *   follows from A, except when A is a multiple of 99 (L and L - 1 both give it: then
 *   the stake is unknown);
 * - `num_winners` is the winning square's miners (`round.count[w]`).
 * What the deploys that show their squares put anywhere must fit inside these figures.
 * Returns the figures (0 where unknown) or why the round does not add up; a reason
 * starting `unprovable:` is a voided round whose total is not shown.
 */
function partlyKnown(reset: ResetEvent, slotHash: Uint8Array, layout: RoundLayout, t: Tally): { tally: Tally; unknown: UnknownFigures; totalDeployed: number } | string {
  const hidden = t.hidden!;
  if (layout === ROUND_LEN_CURRENT) return `${hidden.deploys} deploys do not show their squares, which a 952-byte round's events always do`;
  const square = winningSquare(slotHash);
  if (square !== reset.winningSquare) return `the logged slot hash gives winning square ${square}, the ResetEvent ${reset.winningSquare}`;
  const shown = t.deployed.reduce((a, b) => a + b, 0);
  const unknownMiners = t.miners === null || layout === ROUND_LEN_V3_LEGACY;
  const zeros = (): number[] => new Array<number>(SQUARES).fill(0);
  if (square === null) {
    if (hidden.lamports === null) return `unprovable: voided, and ${hidden.deploys} automated deploys do not show what they staked (the reset logs no total)`;
    const total = shown + hidden.lamports;
    // The v3 voided reset zeroes total_deployed before it logs it.
    if (reset.totalDeployed !== total && reset.totalDeployed !== 0) return `deploys sum to ${total} lamports, the ResetEvent's total_deployed is ${reset.totalDeployed}`;
    return {
      tally: { ...t, deployed: zeros(), count: zeros(), miners: t.miners ?? 0 },
      unknown: { deployed: ALL_SQUARES, count: ALL_SQUARES, totalMiners: unknownMiners },
      totalDeployed: total,
    };
  }
  const total = reset.totalDeployed;
  if (hidden.lamports !== null && shown + hidden.lamports !== total) {
    return `deploys sum to ${shown + hidden.lamports} lamports (${hidden.lamports} of them automated), the ResetEvent's total_deployed is ${total}`;
  }
  if (shown > total) return `the deploys that show their squares sum to ${shown} lamports, more than the ResetEvent's total_deployed ${total}`;
  const shownOnSquare = t.deployed[square]!;
  const tw = reset.totalWinnings;
  const tv = reset.totalVaulted;
  let onSquare: number | null;
  let minersOnSquare: number | null;
  if (tw === 0 && tv === total - Math.floor(total / 100)) {
    onSquare = 0;
    minersOnSquare = 0;
    if (shownOnSquare > 0) return `deploys put ${shownOnSquare} on the winning square, where the reset found nobody`;
  } else {
    const afterFee = tw + tv;
    if (tv !== Math.floor(afterFee / 10)) return `total_vaulted ${tv} is not a tenth of the ${afterFee} lamports won and vaulted`;
    const first = afterFee + Math.floor(afterFee / 99);
    const losing = (afterFee > 0 && afterFee % 99 === 0 ? [first - 1, first] : [first]).filter(
      (l) => l - Math.floor(l / 100) === afterFee && total - l >= Math.max(1, shownOnSquare) && l >= shown - shownOnSquare,
    );
    if (losing.length === 0) return `no stake on winning square ${square} gives total_winnings ${tw} and total_vaulted ${tv} from total_deployed ${total} and the deploys shown`;
    onSquare = losing.length === 1 ? total - losing[0]! : null;
    minersOnSquare = reset.minersField;
    if (minersOnSquare !== null && (minersOnSquare < Math.max(1, t.count[square]!))) {
      return `the ResetEvent's num_winners ${minersOnSquare} is fewer than the ${t.count[square]} miners the deploys shown put on the winning square`;
    }
  }
  const deployed = zeros();
  const count = zeros();
  deployed[square] = onSquare ?? 0;
  count[square] = minersOnSquare ?? 0;
  const bit = 1 << square;
  return {
    tally: { ...t, deployed, count, miners: t.miners ?? 0 },
    unknown: { deployed: onSquare === null ? ALL_SQUARES : ALL_SQUARES & ~bit, count: minersOnSquare === null ? ALL_SQUARES : ALL_SQUARES & ~bit, totalMiners: unknownMiners },
    totalDeployed: total,
  };
}

/**
 * The account as the program left it after the reset. What the chain no longer holds is
 * left empty: `mass` (never written by the program), the rent payer, and the board's
 * production cost (which is not part of the account).
 */
function toAccount(id: number, layout: RoundLayout, reset: ResetEvent, slotHash: Uint8Array, t: Tally, totalDeployed?: number): RoundAccount {
  const current = layout === ROUND_LEN_CURRENT;
  const voided = isVoidedSlotHash(slotHash);
  // The prize the reset minted for the winning square: 1 ORE, less near the supply cap; the rest went to the motherlode pool.
  const reward = Math.min(reset.totalMinted, ORE_BASE_UNITS);
  const total = totalDeployed ?? t.deployed.reduce((a, b) => a + b, 0);
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
