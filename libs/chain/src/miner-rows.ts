import type { MinerRound, PayoutRule } from '@gridlab/contracts';
import { SQUARES } from './ore-layout';
import { lowestBit, popcount } from './rebuild-round';

/** A row's figures that the chain may not prove (null on the wire), as `MinerRows.figure` reads them. */
const FIGURES = [
  'deployed', 'solBack', 'oreTopMiner', 'oreSplit', 'oreMotherlode', 'adminFee', 'protocolFee',
  'networkFee', 'priorityFee', 'executorFee', 'checkpointDeposit', 'net', 'automationStrategy',
] as const;
export type MinerFigure = (typeof FIGURES)[number];
const FIGURE_AT = Object.fromEntries(FIGURES.map((f, i) => [f, i])) as Record<MinerFigure, number>;

// The cells of a row after its figures. NaN stands for null.
const MASK = FIGURES.length;
/** The amount on every square taken, when the same on all; NaN: they differ (see AMOUNTS_AT) or are not shown. */
const AMOUNT = MASK + 1;
/** Where the row's per-square amounts start in the pool, when they differ. */
const AMOUNTS_AT = MASK + 2;
const DEPLOYS = MASK + 3;
const SLOTS_LEFT = MASK + 4;
const SLOTS_LEFT_LAST = MASK + 5;
const AUTOMATED = MASK + 6;
const TOP_MINER = MASK + 7;
const HELD_WINNER = MASK + 8;
const CELLS = MASK + 9;

const cell = (v: number | null): number => (v === null ? NaN : v);
const flag = (v: boolean | null): number => (v === null ? NaN : v ? 1 : 0);

/** What the round says of all its rows. */
export interface MinerRowsRound {
  readonly roundId: number;
  readonly settledAt: string;
  readonly payoutRule: PayoutRule;
}

/** One wallet's row as it is added: a `MinerRound` whose squares and amounts are a mask and the stake per square. */
export interface MinerRowInput extends Omit<MinerRound, 'roundId' | 'settledAt' | 'payoutRule' | 'squares' | 'amounts'> {
  /** Bit s: square s taken; null: the chain does not show which. */
  readonly squares: number | null;
  /** Lamports on square s at `stake[stakeAt + s]` (read for the squares of the mask). */
  readonly stake: ArrayLike<number> | null;
  readonly stakeAt?: number;
}

/**
 * A settled round's wallets, one row each, packed: every figure in one Float64Array and
 * the addresses in two lists, instead of a `MinerRound` object and two arrays a wallet.
 * A history fill holds a chunk of rounds (tens of thousands of rows) until it stores
 * them; held as objects they are copied by every young-generation collection they live
 * through, held packed they are a few objects a round. `row(i)` gives the wire row.
 */
export class MinerRows {
  private constructor(
    private readonly round: MinerRowsRound,
    private readonly addresses: readonly string[],
    private readonly signers: readonly string[],
    private readonly cells: Float64Array,
    /** Per-square amounts of the rows whose amounts differ, each row's in square order. */
    private readonly pool: Float64Array,
  ) {}

  /** Packs wire rows of one round (the order kept): `round`, or the round its first row names. */
  static of(rows: readonly MinerRound[], round: MinerRowsRound | undefined = rows[0]): MinerRows {
    if (round === undefined) throw new Error('no rows and no round: whose rows are they?');
    const builder = MinerRows.builder({ roundId: round.roundId, settledAt: round.settledAt, payoutRule: round.payoutRule }, rows.length);
    const stake = new Array<number>(SQUARES).fill(0);
    for (const r of rows) {
      if (r.roundId !== round.roundId || r.settledAt !== round.settledAt || r.payoutRule !== round.payoutRule) {
        throw new Error(`a row of round ${r.roundId} (${r.payoutRule}, ${r.settledAt}) among round ${round.roundId}'s (${round.payoutRule}, ${round.settledAt})`);
      }
      let squares: number | null = null;
      if (r.squares !== null && r.amounts !== null) {
        squares = 0;
        // In square order, whatever order the wire row lists them in.
        for (let i = 0; i < r.squares.length; i++) {
          squares |= 1 << r.squares[i]!;
          stake[r.squares[i]!] = r.amounts[i]!;
        }
      }
      builder.push({ ...r, squares, stake: squares === null ? null : stake });
    }
    return builder.finish();
  }

  get roundId(): number {
    return this.round.roundId;
  }

  get settledAt(): string {
    return this.round.settledAt;
  }

  get payoutRule(): PayoutRule {
    return this.round.payoutRule;
  }

  get length(): number {
    return this.addresses.length;
  }

  address(i: number): string {
    return this.addresses[i]!;
  }

  signer(i: number): string {
    return this.signers[i]!;
  }

  figure(i: number, name: MinerFigure): number | null {
    const v = this.cells[i * CELLS + FIGURE_AT[name]]!;
    return Number.isNaN(v) ? null : v;
  }

  /** Bit s: square s taken; null: not shown. */
  squareMask(i: number): number | null {
    const v = this.cells[i * CELLS + MASK]!;
    return Number.isNaN(v) ? null : v;
  }

  /** The lamports on every square taken when the same on all (0 when none taken); null when they differ (`amountsOf`) or are not shown. */
  uniformAmount(i: number): number | null {
    const v = this.cells[i * CELLS + AMOUNT]!;
    return Number.isNaN(v) ? null : v;
  }

  /** The lamports on each square taken, in square order; null when not shown. */
  amountsOf(i: number): number[] | null {
    const mask = this.squareMask(i);
    if (mask === null) return null;
    const taken = popcount(mask);
    const uniform = this.uniformAmount(i);
    if (uniform !== null) return new Array<number>(taken).fill(uniform);
    const at = this.cells[i * CELLS + AMOUNTS_AT]!;
    return Array.from(this.pool.subarray(at, at + taken));
  }

  deploys(i: number): number {
    return this.cells[i * CELLS + DEPLOYS]!;
  }

  slotsLeft(i: number): number {
    return this.cells[i * CELLS + SLOTS_LEFT]!;
  }

  slotsLeftLast(i: number): number {
    return this.cells[i * CELLS + SLOTS_LEFT_LAST]!;
  }

  automated(i: number): boolean {
    return this.cells[i * CELLS + AUTOMATED] === 1;
  }

  topMiner(i: number): boolean | null {
    return this.flag(i * CELLS + TOP_MINER);
  }

  heldWinningSquare(i: number): boolean | null {
    return this.flag(i * CELLS + HELD_WINNER);
  }

  /** The wire row. */
  row(i: number): MinerRound {
    const mask = this.squareMask(i);
    const squares: number[] | null = mask === null ? null : [];
    if (squares !== null) for (let s = 0; s < SQUARES; s++) if ((mask! & (1 << s)) !== 0) squares.push(s);
    const f = (name: MinerFigure) => this.figure(i, name);
    return {
      roundId: this.round.roundId,
      address: this.address(i),
      settledAt: this.round.settledAt,
      payoutRule: this.round.payoutRule,
      squares,
      amounts: this.amountsOf(i),
      deployed: f('deployed'),
      deploys: this.deploys(i),
      signer: this.signer(i),
      automated: this.automated(i),
      automationStrategy: f('automationStrategy'),
      slotsLeft: this.slotsLeft(i),
      slotsLeftLast: this.slotsLeftLast(i),
      solBack: f('solBack'),
      oreTopMiner: f('oreTopMiner'),
      oreSplit: f('oreSplit'),
      oreMotherlode: f('oreMotherlode'),
      topMiner: this.topMiner(i),
      heldWinningSquare: this.heldWinningSquare(i),
      adminFee: f('adminFee'),
      protocolFee: f('protocolFee'),
      networkFee: f('networkFee'),
      priorityFee: f('priorityFee'),
      executorFee: f('executorFee'),
      checkpointDeposit: f('checkpointDeposit'),
      net: f('net'),
    };
  }

  /** Every wire row, in order. */
  rows(): MinerRound[] {
    return Array.from({ length: this.length }, (_, i) => this.row(i));
  }

  private flag(at: number): boolean | null {
    const v = this.cells[at]!;
    return Number.isNaN(v) ? null : v === 1;
  }

  /** Rows of `round` added one at a time, at most `capacity`. */
  static builder(round: MinerRowsRound, capacity: number): MinerRowsBuilder {
    const parts = new Parts(capacity);
    return {
      push: (r) => parts.push(r),
      finish: () => new MinerRows(round, parts.addresses, parts.signers, parts.cells.subarray(0, parts.addresses.length * CELLS), Float64Array.from(parts.pool)),
    };
  }
}

export interface MinerRowsBuilder {
  push(row: MinerRowInput): void;
  finish(): MinerRows;
}

/** A builder's rows so far. */
class Parts {
  readonly addresses: string[] = [];
  readonly signers: string[] = [];
  readonly cells: Float64Array;
  readonly pool: number[] = [];

  constructor(capacity: number) {
    this.cells = new Float64Array(capacity * CELLS);
  }

  push(r: MinerRowInput): void {
    const o = this.addresses.length * CELLS;
    if (o >= this.cells.length) throw new RangeError(`more than ${this.cells.length / CELLS} rows`);
    const c = this.cells;
    this.addresses.push(r.address);
    this.signers.push(r.signer);
    for (let f = 0; f < FIGURES.length; f++) c[o + f] = cell(r[FIGURES[f]!]);
    c[o + MASK] = cell(r.squares);
    c[o + AMOUNT] = NaN;
    c[o + AMOUNTS_AT] = NaN;
    if (r.squares !== null && r.stake !== null) {
      const { squares, stake } = r;
      const at = r.stakeAt ?? 0;
      let uniform: number | null = null;
      let same = true;
      for (let m = squares; m !== 0 && same; m &= m - 1) {
        const v = stake[at + lowestBit(m)]!;
        if (uniform === null) uniform = v;
        else if (v !== uniform) same = false;
      }
      if (same) c[o + AMOUNT] = uniform ?? 0;
      else {
        c[o + AMOUNTS_AT] = this.pool.length;
        for (let m = squares; m !== 0; m &= m - 1) this.pool.push(stake[at + lowestBit(m)]!);
      }
    } else c[o + MASK] = NaN;
    c[o + DEPLOYS] = r.deploys;
    c[o + SLOTS_LEFT] = r.slotsLeft;
    c[o + SLOTS_LEFT_LAST] = r.slotsLeftLast;
    c[o + AUTOMATED] = r.automated ? 1 : 0;
    c[o + TOP_MINER] = flag(r.topMiner);
    c[o + HELD_WINNER] = flag(r.heldWinningSquare);
  }
}

