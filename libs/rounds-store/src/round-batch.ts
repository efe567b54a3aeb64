import { dateTimeMs, type Round } from '@gridlab/contracts';
import { PAYOUT_RULE_CODES, ROUND_COLUMNS, SOURCE_CODES } from './rounds-table';
import * as table from './rounds-table';

// Bound to module constants: an imported binding is read through a getter on every use
// once compiled to CommonJS, which the per-row loops below pay measurably.
const { COPY_HEADER_BYTES, COPY_SIGNATURE, MAX_TUPLE_BYTES, SQUARES, UNKNOWN_SQUARE_WORD } = table;

const PARTIAL_SOURCE = SOURCE_CODES.transactions_partial;
/** Longest base58 address (32 bytes). */
const ADDRESS_MAX = 44;
const TWO_32 = 0x1_0000_0000;
/** PostgreSQL timestamps count microseconds from 2000-01-01T00:00:00Z. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);

/**
 * One round as plain numbers and bytes, filled in place (one per reader, reused for every
 * round): a stored round's fields without the strings and arrays of a `Round`. Nulls are
 * -1 (no valid value is negative), per-square figures of a partly known round included.
 */
export class RoundRow {
  id = 0;
  readonly deployed = new Float64Array(SQUARES);
  readonly count = new Float64Array(SQUARES);
  /** -1: voided. */
  winningSquare = -1;
  totalDeployed = 0;
  totalWinnings = 0;
  totalVaulted = 0;
  /** -1: not known (a partly known round). */
  totalMiners = 0;
  motherlode = 0;
  topMinerReward = 0;
  readonly slotHash = Buffer.alloc(32);
  /** Milliseconds since the Unix epoch. */
  settledAtMs = 0;
  /** A `PAYOUT_RULE_CODES` value. */
  payoutRule = 0;
  oreReward = -1;
  /** The address's latin1 bytes; `topMinerLength` -1 when null. */
  readonly topMiner = Buffer.alloc(ADDRESS_MAX);
  topMinerLength = -1;
  /** -1 null, 0 false, 1 true. */
  split = -1;
  productionCost = -1;
  /** A `SOURCE_CODES` value. */
  source = 0;
  motherlodePool = -1;

  /** Fills this row from a validated round. */
  setRound(r: Round): this {
    this.id = r.id;
    for (let s = 0; s < SQUARES; s++) {
      this.deployed[s] = r.deployed[s] ?? -1;
      this.count[s] = r.count[s] ?? -1;
    }
    this.winningSquare = r.winningSquare ?? -1;
    this.totalDeployed = r.totalDeployed;
    this.totalWinnings = r.totalWinnings;
    this.totalVaulted = r.totalVaulted;
    this.totalMiners = r.totalMiners ?? -1;
    this.motherlode = r.motherlode;
    this.topMinerReward = r.topMinerReward;
    this.slotHash.write(r.slotHash, 'hex');
    this.settledAtMs = dateTimeMs(r.settledAt);
    this.payoutRule = PAYOUT_RULE_CODES[r.payoutRule];
    this.oreReward = r.oreReward ?? -1;
    this.topMinerLength = r.topMiner === null ? -1 : this.topMiner.write(r.topMiner, 'latin1');
    this.split = r.split === null ? -1 : r.split ? 1 : 0;
    this.productionCost = r.productionCost ?? -1;
    this.source = SOURCE_CODES[r.source];
    this.motherlodePool = r.motherlodePool ?? -1;
    return this;
  }
}

/**
 * Rounds on their way into `indexer.rounds`: each one's binary COPY tuple (PostgreSQL's
 * binary COPY format: no text parsing of integers or hex on the server) and, in columns,
 * the fields the stored aggregates add up. Rows are appended from a `RoundRow`, so an
 * import can go from file bytes to COPY bytes without building a `Round` per line.
 */
export class RoundBatch {
  readonly ids: Float64Array;
  /** -1: voided. */
  readonly winners: Int8Array;
  readonly rules: Uint8Array;
  readonly totalDeployed: Float64Array;
  readonly totalWinnings: Float64Array;
  readonly motherlode: Float64Array;
  /** -1: null. */
  readonly oreReward: Float64Array;
  /** -1: null. */
  readonly productionCost: Float64Array;
  /** Row i's squares at [i * 25, i * 25 + 25); -1: not known. */
  readonly deployed: Float64Array;
  /** 1: a partly known round (`transactions_partial`). */
  readonly partial: Uint8Array;
  private readonly tuples: Buffer;
  private readonly view: DataView;
  /** Row i's tuple starts at tupleStart[i] and ends at tupleStart[i + 1]. */
  private readonly tupleStart: Uint32Array;
  private rows = 0;
  private ascending = true;

  constructor(readonly capacity: number) {
    this.ids = new Float64Array(capacity);
    this.winners = new Int8Array(capacity);
    this.rules = new Uint8Array(capacity);
    this.totalDeployed = new Float64Array(capacity);
    this.totalWinnings = new Float64Array(capacity);
    this.motherlode = new Float64Array(capacity);
    this.oreReward = new Float64Array(capacity);
    this.productionCost = new Float64Array(capacity);
    this.deployed = new Float64Array(capacity * SQUARES);
    this.partial = new Uint8Array(capacity);
    this.tuples = Buffer.allocUnsafe(COPY_HEADER_BYTES + capacity * MAX_TUPLE_BYTES + 2);
    this.view = new DataView(this.tuples.buffer, this.tuples.byteOffset, this.tuples.byteLength);
    this.tupleStart = new Uint32Array(capacity + 1);
    let o = COPY_SIGNATURE.copy(this.tuples, 0);
    this.view.setInt32(o, 0);
    this.view.setInt32(o + 4, 0);
    o += 8;
    this.tupleStart[0] = o;
  }

  /** A batch of `rounds`, in their order. */
  static of(rounds: readonly Round[]): RoundBatch {
    const batch = new RoundBatch(rounds.length);
    const row = new RoundRow();
    for (const r of rounds) batch.push(row.setRound(r));
    return batch;
  }

  get length(): number {
    return this.rows;
  }

  get full(): boolean {
    return this.rows === this.capacity;
  }

  /** Empties the batch for reuse. */
  clear(): void {
    this.rows = 0;
    this.ascending = true;
  }

  /** Appends a row (its values must be valid: they are not checked here). */
  push(row: RoundRow): void {
    const i = this.rows;
    if (i === this.capacity) throw new RangeError(`the batch holds ${this.capacity} rounds`);
    if (i > 0 && row.id <= this.ids[i - 1]!) this.ascending = false;
    this.ids[i] = row.id;
    this.winners[i] = row.winningSquare;
    this.rules[i] = row.payoutRule;
    this.totalDeployed[i] = row.totalDeployed;
    this.totalWinnings[i] = row.totalWinnings;
    this.motherlode[i] = row.motherlode;
    this.oreReward[i] = row.oreReward;
    this.productionCost[i] = row.productionCost;
    this.deployed.set(row.deployed, i * SQUARES);
    this.partial[i] = row.source === PARTIAL_SOURCE ? 1 : 0;
    this.tupleStart[i + 1] = this.encode(row, this.tupleStart[i]!);
    this.rows = i + 1;
  }

  /**
   * This batch sorted by id with each id once (its first row wins): `this` when it
   * already is, which is the common case of a history file.
   */
  sortedUnique(): RoundBatch {
    if (this.ascending) return this;
    const order = Array.from({ length: this.rows }, (_, i) => i);
    order.sort((a, b) => this.ids[a]! - this.ids[b]! || a - b);
    const kept = order.filter((i, k) => k === 0 || this.ids[i] !== this.ids[order[k - 1]!]);
    const out = new RoundBatch(kept.length);
    for (const i of kept) out.copyRow(this, i);
    return out;
  }

  /** The batch as one binary COPY stream (header, tuples, trailer). */
  copyData(): Buffer {
    const end = this.tupleStart[this.rows]!;
    this.view.setInt16(end, -1);
    return this.tuples.subarray(0, end + 2);
  }

  private copyRow(from: RoundBatch, i: number): void {
    const k = this.rows;
    this.ids[k] = from.ids[i]!;
    this.winners[k] = from.winners[i]!;
    this.rules[k] = from.rules[i]!;
    this.totalDeployed[k] = from.totalDeployed[i]!;
    this.totalWinnings[k] = from.totalWinnings[i]!;
    this.motherlode[k] = from.motherlode[i]!;
    this.oreReward[k] = from.oreReward[i]!;
    this.productionCost[k] = from.productionCost[i]!;
    this.deployed.set(from.deployed.subarray(i * SQUARES, i * SQUARES + SQUARES), k * SQUARES);
    this.partial[k] = from.partial[i]!;
    const start = this.tupleStart[k]!;
    this.tupleStart[k + 1] = start + from.tuples.copy(this.tuples, start, from.tupleStart[i], from.tupleStart[i + 1]);
    if (k > 0 && this.ids[k] <= this.ids[k - 1]!) this.ascending = false;
    this.rows = k + 1;
  }

  /** Writes `row`'s tuple at `o`; returns where it ends. */
  private encode(row: RoundRow, o: number): number {
    const view = this.view;
    view.setInt16(o, ROUND_COLUMNS.length);
    o = putInt8(view, o + 2, row.id);
    o = putSquares(view, o, row.deployed);
    o = putSquares(view, o, row.count);
    if (row.winningSquare < 0) o = putNull(view, o);
    else {
      view.setInt32(o, 2);
      view.setInt16(o + 4, row.winningSquare);
      o += 6;
    }
    o = putInt8(view, o, row.totalDeployed);
    o = putInt8(view, o, row.totalWinnings);
    o = putInt8(view, o, row.totalVaulted);
    o = row.totalMiners < 0 ? putNull(view, o) : putInt8(view, o, row.totalMiners);
    o = putInt8(view, o, row.motherlode);
    o = putInt8(view, o, row.topMinerReward);
    view.setInt32(o, 32);
    o += 4 + row.slotHash.copy(this.tuples, o + 4);
    o = putInt8(view, o, (row.settledAtMs - PG_EPOCH_MS) * 1000);
    view.setInt32(o, 2);
    view.setInt16(o + 4, row.payoutRule);
    o = row.oreReward < 0 ? putNull(view, o + 6) : putInt8(view, o + 6, row.oreReward);
    if (row.topMinerLength < 0) o = putNull(view, o);
    else {
      view.setInt32(o, row.topMinerLength);
      o += 4 + row.topMiner.copy(this.tuples, o + 4, 0, row.topMinerLength);
    }
    if (row.split < 0) o = putNull(view, o);
    else {
      view.setInt32(o, 1);
      view.setUint8(o + 4, row.split);
      o += 5;
    }
    o = row.productionCost < 0 ? putNull(view, o) : putInt8(view, o, row.productionCost);
    view.setInt32(o, 2);
    view.setInt16(o + 4, row.source);
    return row.motherlodePool < 0 ? putNull(view, o + 6) : putInt8(view, o + 6, row.motherlodePool);
  }
}

/** A NULL field. */
function putNull(view: DataView, o: number): number {
  view.setInt32(o, -1);
  return o + 4;
}

/** A big-endian int8 field (length prefix and value) of a safe integer. */
function putInt8(view: DataView, o: number, v: number): number {
  view.setInt32(o, 8);
  view.setInt32(o + 4, Math.floor(v / TWO_32));
  view.setUint32(o + 8, v >>> 0);
  return o + 12;
}

/** A bytea of 25 little-endian u64 (the on-chain layout; see packing.ts); -1 (not known) as u64::MAX. */
function putSquares(view: DataView, o: number, values: Float64Array): number {
  view.setInt32(o, SQUARES * 8);
  o += 4;
  for (let s = 0; s < SQUARES; s++) {
    const v = values[s]!;
    if (v < 0) {
      view.setUint32(o, UNKNOWN_SQUARE_WORD, true);
      view.setUint32(o + 4, UNKNOWN_SQUARE_WORD, true);
    } else {
      view.setUint32(o, v >>> 0, true);
      view.setUint32(o + 4, Math.floor(v / TWO_32), true);
    }
    o += 8;
  }
  return o;
}

/** Rounds in binary COPY format, in their order (see `RoundBatch`). */
export function encodeCopyBinary(rounds: readonly Round[]): Buffer {
  return RoundBatch.of(rounds).copyData();
}
