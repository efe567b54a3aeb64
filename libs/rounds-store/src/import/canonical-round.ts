import type { RoundRow } from '../round-batch';
import * as line from '../round-line';
import * as table from '../rounds-table';

// Bound to module constants: an imported binding is read through a getter on every use
// once compiled to CommonJS, which the per-row loops below pay measurably.
const { SQUARES } = table;
const {
  K_COUNT, K_DEPLOYED, K_END, K_ID, K_MOTHERLODE, K_ORE_REWARD, K_PAYOUT_RULE, K_PRODUCTION_COST, K_SETTLED_AT, K_SLOT_HASH, K_SPLIT,
  K_MOTHERLODE_POOL, K_SOURCE, K_TOP_MINER, K_TOP_MINER_REWARD, K_TOTAL_DEPLOYED, K_TOTAL_MINERS, K_TOTAL_VAULTED, K_TOTAL_WINNINGS, K_WINNING,
  V_FALSE, V_NULL, V_PARIMUTUEL, V_RETURNS, V_SOURCES, V_TRUE,
} = line;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** A safe integer has at most 16 digits. */
const MAX_DIGITS = 16;
const QUOTE = 0x22;
const COMMA = 0x2c;
const DIGIT_0 = 0x30;
const LOWER_N = 0x6e;

/** Lowercase hex digit values; 255 for any other byte. */
const HEX = new Uint8Array(256).fill(255);
for (let i = 0; i < 16; i++) HEX['0123456789abcdef'.charCodeAt(i)] = i;
/** 1 for the base58 alphabet (`topMiner`'s pattern). */
const BASE58 = new Uint8Array(256);
for (const c of '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz') BASE58[c.charCodeAt(0)] = 1;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Reads a history line written in the exact shape `/api/v1/dump` writes (and
 * `JSON.stringify` of a round): the round schema's keys in its order, no whitespace,
 * integers in their shortest form, `settledAt` as `YYYY-MM-DDTHH:MM:SS.sssZ`. Such a line
 * is filled into a `RoundRow` straight from its bytes, with no `JSON.parse`, no `Round`
 * and no schema call: each value is checked here against the round schema's own rule
 * (property-tested against JSON.parse and the schema). Any other line, valid or not, is
 * refused (`false`) and takes the general path, which judges and reports it.
 */
export class CanonicalRoundReader {
  private b: Uint8Array = new Uint8Array(0);
  /** Over `b`, for reading four digits at once. */
  private view: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private p = 0;
  private end = 0;

  /** Fills `row` from bytes [start, end) (a line without its newline); false if the line is not canonical. */
  read(bytes: Uint8Array, start: number, end: number, row: RoundRow): boolean {
    if (bytes !== this.b) {
      // Lines come many to a chunk: one view per chunk.
      this.b = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    }
    this.p = start;
    this.end = end;
    if (!this.literal(K_ID) || (row.id = this.uint()) < 0) return false;
    if (!this.literal(K_DEPLOYED) || !this.squares(row.deployed)) return false;
    if (!this.literal(K_COUNT) || !this.squares(row.count)) return false;
    if (!this.literal(K_WINNING)) return false;
    const w = this.nullableUint();
    if (w < -1 || w >= SQUARES) return false;
    row.winningSquare = w;
    if (!this.literal(K_TOTAL_DEPLOYED) || (row.totalDeployed = this.uint()) < 0) return false;
    if (!this.literal(K_TOTAL_WINNINGS) || (row.totalWinnings = this.uint()) < 0) return false;
    if (!this.literal(K_TOTAL_VAULTED) || (row.totalVaulted = this.uint()) < 0) return false;
    if (!this.literal(K_TOTAL_MINERS) || (row.totalMiners = this.uint()) < 0) return false;
    if (!this.literal(K_MOTHERLODE) || (row.motherlode = this.uint()) < 0) return false;
    if (!this.literal(K_TOP_MINER_REWARD) || (row.topMinerReward = this.uint()) < 0) return false;
    if (!this.literal(K_SLOT_HASH) || !this.slotHash(row.slotHash)) return false;
    if (!this.literal(K_SETTLED_AT) || Number.isNaN((row.settledAtMs = this.isoTime()))) return false;
    if (!this.literal(K_PAYOUT_RULE)) return false;
    if (this.literal(V_PARIMUTUEL)) row.payoutRule = 0;
    else if (this.literal(V_RETURNS)) row.payoutRule = 1;
    else return false;
    if (!this.literal(K_ORE_REWARD) || (row.oreReward = this.nullableUint()) < -1) return false;
    if (!this.literal(K_TOP_MINER) || (row.topMinerLength = this.address(row.topMiner)) < -1) return false;
    if (!this.literal(K_SPLIT)) return false;
    if (this.literal(V_NULL)) row.split = -1;
    else if (this.literal(V_TRUE)) row.split = 1;
    else if (this.literal(V_FALSE)) row.split = 0;
    else return false;
    if (!this.literal(K_PRODUCTION_COST) || (row.productionCost = this.nullableUint()) < -1) return false;
    if (!this.literal(K_SOURCE)) return false;
    row.source = -1;
    for (let code = 0; code < V_SOURCES.length; code++) {
      if (this.literal(V_SOURCES[code]!)) {
        row.source = code;
        break;
      }
    }
    if (row.source < 0 || !this.literal(K_MOTHERLODE_POOL) || (row.motherlodePool = this.nullableUint()) < -1) return false;
    return this.literal(K_END) && this.p === this.end;
  }

  /** Consumes `lit` if the bytes at the cursor are exactly it. */
  private literal(lit: Uint8Array): boolean {
    const b = this.b;
    const p = this.p;
    const n = lit.length;
    if (p + n > this.end) return false;
    for (let i = 0; i < n; i++) if (b[p + i] !== lit[i]) return false;
    this.p = p + n;
    return true;
  }

  /** A non-negative safe integer in its shortest form; -2 if there is none. */
  private uint(): number {
    const b = this.b;
    const end = this.end;
    const start = this.p;
    let p = start;
    if (p >= end) return -2;
    const first = b[p]! - DIGIT_0;
    if (first < 0 || first > 9) return -2;
    let v = 0;
    const last = Math.min(end, p + MAX_DIGITS);
    // Four digits at a time while there are four (a lamport amount has 10 to 13): the
    // bytes as a little-endian u32, each checked to be 0x30–0x39 (a high nibble of 3 both
    // before and after adding 6), then folded pairwise, 10·d0 + d1 and 10·d2 + d3.
    const view = this.view;
    while (p + 4 <= last) {
      const x = view.getUint32(p, true);
      if (((x & 0xf0f0f0f0) | (((x + 0x06060606) & 0xf0f0f0f0) >>> 4)) !== 0x33333333) break;
      const d = x - 0x30303030;
      const pairs = Math.imul(d, 10) + (d >>> 8);
      v = v * 10_000 + (pairs & 0xff) * 100 + ((pairs >>> 16) & 0xff);
      p += 4;
    }
    for (; p < last; p++) {
      const d = b[p]! - DIGIT_0;
      if (d < 0 || d > 9) break;
      v = v * 10 + d;
    }
    // A leading zero, a 17th digit, or past 2^53 - 1 (doubles are exact up to it, and a
    // larger value never rounds below it): not canonical or not valid.
    if (p < end && b[p]! >= DIGIT_0 && b[p]! <= DIGIT_0 + 9) return -2;
    if ((first === 0 && p > start + 1) || v > MAX_SAFE) return -2;
    this.p = p;
    return v;
  }

  /** `null` (-1) or a safe integer; -2 if neither. */
  private nullableUint(): number {
    if (this.b[this.p] === LOWER_N) return this.literal(V_NULL) ? -1 : -2;
    return this.uint();
  }

  /** 25 comma-separated safe integers. */
  private squares(into: Float64Array): boolean {
    for (let s = 0; s < SQUARES; s++) {
      if (s > 0) {
        if (this.p >= this.end || this.b[this.p] !== COMMA) return false;
        this.p++;
      }
      const v = this.uint();
      if (v < 0) return false;
      into[s] = v;
    }
    return true;
  }

  /** 64 lowercase hex digits (the schema's `^[0-9a-f]{64}$`), decoded into 32 bytes. */
  private slotHash(into: Uint8Array): boolean {
    const b = this.b;
    const p = this.p;
    if (p + 64 > this.end) return false;
    for (let i = 0; i < 32; i++) {
      const hi = HEX[b[p + 2 * i]!]!;
      const lo = HEX[b[p + 2 * i + 1]!]!;
      if ((hi | lo) === 255) return false;
      into[i] = (hi << 4) | lo;
    }
    this.p = p + 64;
    return true;
  }

  /**
   * `YYYY-MM-DDTHH:MM:SS.sssZ` (what `Date.prototype.toISOString` writes) of a real
   * calendar date, as milliseconds since the epoch; NaN for any other form (the schema
   * accepts more, such as offsets and leap seconds: those lines take the general path).
   */
  private isoTime(): number {
    const b = this.b;
    const p = this.p;
    if (p + 24 > this.end) return Number.NaN;
    if (b[p + 4] !== 0x2d || b[p + 7] !== 0x2d || b[p + 10] !== 0x54 || b[p + 13] !== 0x3a || b[p + 16] !== 0x3a || b[p + 19] !== 0x2e || b[p + 23] !== 0x5a) {
      return Number.NaN;
    }
    const year = this.digits(p, 4);
    const month = this.digits(p + 5, 2);
    const day = this.digits(p + 8, 2);
    const hour = this.digits(p + 11, 2);
    const minute = this.digits(p + 14, 2);
    const second = this.digits(p + 17, 2);
    const ms = this.digits(p + 20, 3);
    // Date.UTC reads years 0-99 as 1900-1999: such dates take the general path.
    if ((year | month | day | hour | minute | second | ms) < 0) return Number.NaN;
    if (year < 100 || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return Number.NaN;
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    if (day > (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!)) return Number.NaN;
    this.p = p + 24;
    return Date.UTC(year, month - 1, day, hour, minute, second, ms);
  }

  /** The value of `n` decimal digits at `at`; negative if any is not a digit. */
  private digits(at: number, n: number): number {
    let v = 0;
    for (let i = 0; i < n; i++) {
      const d = this.b[at + i]! - DIGIT_0;
      if (d < 0 || d > 9) return -1e9;
      v = v * 10 + d;
    }
    return v;
  }

  /** `null` (-1) or a quoted base58 address of 32 to 44 characters copied into `into` (its length); -2 if neither. */
  private address(into: Uint8Array): number {
    const b = this.b;
    if (b[this.p] === LOWER_N) return this.literal(V_NULL) ? -1 : -2;
    const p = this.p;
    if (b[p] !== QUOTE) return -2;
    let q = p + 1;
    const last = Math.min(this.end, q + 45);
    while (q < last && BASE58[b[q]!] === 1) q++;
    const length = q - p - 1;
    if (q >= this.end || b[q] !== QUOTE || length < 32 || length > 44) return -2;
    for (let i = 0; i < length; i++) into[i] = b[p + 1 + i]!;
    this.p = q + 1;
    return length;
  }
}
