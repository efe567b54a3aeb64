/**
 * Synthetic miner-rounds shaped like mainnet's (heavy-tailed wallets, whales, automated
 * wallets deploying in the last slots, second deploys, per-square amounts now and then),
 * and a binary COPY writer: shared by the miner ledger's bench (make bench) and its storage
 * study (bench/miner-ledger-storage.ts). Deterministic for a seed.
 */

export const ROUNDS_PER_DAY = 1440;
export const WHALES = 120;
export const EXECUTORS = 8;
const SQUARES = 25;
const ALL_SQUARES = (1 << SQUARES) - 1;
const ORE = 100_000_000_000;

/** How much data: miner-rounds in all, over how many rounds, among how many wallets. */
export interface Scale {
  readonly rows: number;
  readonly rounds: number;
  readonly wallets: number;
}

// ---------------------------------------------------------------------------------------
// Deterministic PRNG (sfc32), so a run can be repeated.
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d = 1;
  constructor(seed: number) {
    this.a = 0x9e3779b9;
    this.b = 0x243f6a88;
    this.c = seed | 0;
    for (let k = 0; k < 15; k++) this.next();
  }
  next(): number {
    this.a |= 0;
    this.b |= 0;
    this.c |= 0;
    this.d |= 0;
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  normal(): number {
    const u = Math.max(1e-12, this.next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}


// ---------------------------------------------------------------------------------------
// Synthetic wallets and rounds.

export interface Wallets {
  /** Per wallet (index = id - 1): 1 whale, chance per round for whales. */
  readonly whale: Uint8Array;
  readonly chance: Float64Array;
  readonly baseAmount: Float64Array;
  /** -1: manual; strategy otherwise. */
  readonly strategy: Int16Array;
  readonly executor: Int32Array;
  /** Preferred square count (25: all). */
  readonly squares: Uint8Array;
}

export function makeWallets(rng: Rng, { wallets: WALLETS }: Scale): Wallets {
  const whale = new Uint8Array(WALLETS);
  const chance = new Float64Array(WALLETS);
  const baseAmount = new Float64Array(WALLETS);
  const strategy = new Int16Array(WALLETS);
  const executor = new Int32Array(WALLETS);
  const squares = new Uint8Array(WALLETS);
  const squareChoices = [1, 1, 1, 2, 3, 5, 5, 10, 25, 25];
  for (let i = 0; i < WALLETS; i++) {
    const isWhale = i < WHALES;
    whale[i] = isWhale ? 1 : 0;
    baseAmount[i] = Math.round(10 ** (isWhale ? 7 + 2 * rng.next() : 5 + 3 * rng.next()));
    const automated = rng.next() < (isWhale ? 0.7 : 0.15);
    strategy[i] = automated ? (rng.next() < 0.1 ? -2 : rng.int(6)) : -1;
    executor[i] = automated ? WALLETS + 1 + rng.int(EXECUTORS) : i + 1;
    squares[i] = isWhale ? (rng.next() < 0.7 ? 25 : 5 + rng.int(21)) : squareChoices[rng.int(squareChoices.length)]!;
    chance[i] = isWhale ? 0.55 + 0.43 * rng.next() : 0;
  }
  return { whale, chance, baseAmount, strategy, executor, squares };
}

/** Which wallet plays which round: (round, wallet) pairs sorted by round, heavy-tailed per wallet. */
export function placeWallets(rng: Rng, w: Wallets, { rows: ROWS, rounds: ROUNDS, wallets: WALLETS }: Scale): { start: Int32Array; wallet: Int32Array } {
  let whaleRows = 0;
  for (let i = 0; i < WHALES; i++) whaleRows += w.chance[i]! * ROUNDS;
  // Everyone else: rounds played ~ lognormal (sigma 2.2), capped at half the rounds; the
  // median scaled so that the total comes to ROWS.
  const z = new Float64Array(WALLETS);
  for (let i = WHALES; i < WALLETS; i++) z[i] = rng.normal();
  const cap = ROUNDS / 2;
  const total = (m: number): number => {
    let t = 0;
    for (let i = WHALES; i < WALLETS; i++) t += Math.max(1, Math.min(cap, m * Math.exp(2.2 * z[i]!)));
    return t;
  };
  let lo = 0.01;
  let hi = ROUNDS;
  for (let k = 0; k < 60; k++) {
    const mid = Math.sqrt(lo * hi);
    if (total(mid) < ROWS - whaleRows) lo = mid;
    else hi = mid;
  }
  const median = lo;
  const roundOf: number[] = [];
  const walletOf: number[] = [];
  const roundsA = new Int32Array(Math.ceil(ROWS * 1.05));
  const walletsA = new Int32Array(roundsA.length);
  let n = 0;
  const push = (r: number, id: number): void => {
    if (n < roundsA.length) {
      roundsA[n] = r;
      walletsA[n] = id;
      n++;
    } else {
      roundOf.push(r);
      walletOf.push(id);
    }
  };
  for (let i = 0; i < WALLETS; i++) {
    if (i < WHALES) {
      const p = w.chance[i]!;
      for (let r = 0; r < ROUNDS; r++) if (rng.next() < p) push(r, i + 1);
      continue;
    }
    const want = Math.round(Math.max(1, Math.min(cap, median * Math.exp(2.2 * z[i]!))));
    // Played within one active span, at a density between 5% and 100% of its rounds.
    const density = 0.05 + 0.95 * rng.next();
    const span = Math.min(ROUNDS, Math.max(want, Math.round(want / density)));
    const first = rng.int(ROUNDS - span + 1);
    const p = want / span;
    for (let r = first; r < first + span; r++) if (rng.next() < p) push(r, i + 1);
  }
  const count = n + roundOf.length;
  // Counting sort by round.
  const start = new Int32Array(ROUNDS + 1);
  for (let k = 0; k < n; k++) start[roundsA[k]! + 1]!++;
  for (const r of roundOf) start[r + 1]!++;
  for (let r = 0; r < ROUNDS; r++) start[r + 1]! += start[r]!;
  const fill = start.slice(0, ROUNDS);
  const wallet = new Int32Array(count);
  for (let k = 0; k < n; k++) wallet[fill[roundsA[k]!]!++] = walletsA[k]!;
  for (let k = 0; k < roundOf.length; k++) wallet[fill[roundOf[k]!]!++] = walletOf[k]!;
  console.log(`placed ${count} miner-rounds (${(count / ROUNDS).toFixed(0)} a round), non-whale median target ${median.toFixed(1)} rounds`);
  return { start, wallet };
}

/** One miner-round, as A stores it (nulls as null). */
export interface Row {
  amount: number | null;
  solBack: number | null;
  ore: number | null;
  oreMotherlode: number | null;
  adminFee: number | null;
  protocolFee: number | null;
  round: number;
  miner: number;
  squares: number;
  signer: number;
  txFee: number | null;
  slotsLeft: number;
  slotsLeftLast: number;
  deploys: number;
  strategy: number;
  flags: number;
  amounts: number[] | null;
}

export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function randomMask(rng: Rng, k: number): number {
  if (k >= SQUARES) return ALL_SQUARES;
  let m = 0;
  while (popcount(m) < k) m |= 1 << rng.int(SQUARES);
  return m >>> 0;
}

/** A round's rows: deploys, then the draw settled over them (the `returns` rule, roughly). */
export function makeRound(rng: Rng, w: Wallets, round: number, ids: Int32Array): Row[] {
  const rows: Row[] = [];
  const onSquare = new Float64Array(SQUARES);
  for (const id of ids) {
    const i = id - 1;
    const strategy = w.strategy[i]!;
    const automated = strategy !== -1;
    const k = w.squares[i]! === 25 || rng.next() < 0.7 ? w.squares[i]! : 1 + rng.int(SQUARES);
    const squares = randomMask(rng, k);
    const r = rng.next();
    const amount = Math.round(w.baseAmount[i]! * (r < 0.8 ? 1 : r < 0.9 ? 2 : 0.5));
    const deploys = rng.next() < 0.08 ? 2 : 1;
    let amounts: number[] | null = null;
    if (deploys === 2 && rng.next() < 0.4 && k > 1) {
      amounts = [];
      for (let s = 0; s < SQUARES; s++) if (squares & (1 << s)) amounts.push(rng.next() < 0.5 ? amount : amount * 2);
    }
    const slotsLeft = automated ? (rng.next() < 0.9 ? rng.int(3) : rng.int(20)) : 3 + rng.int(147);
    const slotsLeftLast = deploys === 2 ? rng.int(slotsLeft + 1) : slotsLeft;
    const unknown = rng.next() < 0.005;
    let j = 0;
    for (let s = 0; s < SQUARES; s++) if (squares & (1 << s)) onSquare[s]! += amounts === null ? amount : amounts[j++]!;
    rows.push({
      amount: unknown || amounts !== null ? null : amount,
      solBack: null,
      ore: null,
      oreMotherlode: null,
      adminFee: null,
      protocolFee: null,
      round,
      miner: id,
      squares,
      signer: w.executor[i]!,
      txFee: automated ? 0 : rng.next() < 0.01 ? null : 5000 + rng.int(50_000),
      slotsLeft,
      slotsLeftLast,
      deploys,
      strategy,
      flags: unknown ? -1 : 0,
      amounts,
    });
  }
  const winner = rng.int(SQUARES);
  const split = rng.next() < 0.1;
  const motherlode = rng.next() < 1 / 625 ? Math.round((10 + 190 * rng.next()) * ORE) : 0;
  const holders = rows.filter((row) => row.flags === 0 && row.squares & (1 << winner));
  const top = split || holders.length === 0 ? null : holders[rng.int(holders.length)]!;
  const onWinner = onSquare[winner]!;
  for (const row of rows) {
    if (row.flags === -1) {
      row.flags = 0;
      continue;
    }
    let stake = 0;
    let onW = 0;
    let j = 0;
    for (let s = 0; s < SQUARES; s++) {
      if (!(row.squares & (1 << s))) continue;
      const x = row.amounts === null ? row.amount! : row.amounts[j++]!;
      stake += x;
      if (s === winner) onW = x;
    }
    const losing = stake - onW;
    row.adminFee = Math.max(1, Math.floor(stake / 100));
    row.protocolFee = Math.floor((losing * 0.99) / 10);
    row.solBack = Math.floor(onW * 0.99) + Math.floor(losing * 0.891);
    const held = onW > 0;
    row.ore = !held ? 0 : split ? Math.floor((ORE * onW) / onWinner) : row === top ? ORE : 0;
    row.oreMotherlode = held && motherlode > 0 ? Math.floor((motherlode * onW) / onWinner) : 0;
    row.flags = (row === top ? 1 : 0) | (split ? 2 : 0) | (held ? 4 : 0);
  }
  return rows;
}


// ---------------------------------------------------------------------------------------
// Binary COPY encoding.

const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

export class CopyWriter {
  buf = Buffer.allocUnsafe(1 << 20);
  o = 0;
  constructor(header = true) {
    if (header) {
      this.o = COPY_SIGNATURE.copy(this.buf, 0);
      this.o = this.buf.writeInt32BE(0, this.o);
      this.o = this.buf.writeInt32BE(0, this.o);
    }
  }
  ensure(n: number): void {
    if (this.o + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.o + n));
    this.buf.copy(next, 0, 0, this.o);
    this.buf = next;
  }
  take(): Buffer {
    const out = Buffer.from(this.buf.subarray(0, this.o));
    this.o = 0;
    return out;
  }
  fields(n: number): void {
    this.ensure(512);
    this.o = this.buf.writeInt16BE(n, this.o);
  }
  int8(v: number | null): void {
    if (v === null) {
      this.o = this.buf.writeInt32BE(-1, this.o);
      return;
    }
    this.o = this.buf.writeInt32BE(8, this.o);
    this.o = this.buf.writeInt32BE(Math.floor(v / 4294967296), this.o);
    this.o = this.buf.writeUInt32BE(v >>> 0, this.o);
  }
  int4(v: number | null): void {
    if (v === null) {
      this.o = this.buf.writeInt32BE(-1, this.o);
      return;
    }
    this.o = this.buf.writeInt32BE(4, this.o);
    this.o = this.buf.writeInt32BE(v | 0, this.o);
  }
  int2(v: number): void {
    this.o = this.buf.writeInt32BE(2, this.o);
    this.o = this.buf.writeInt16BE(v, this.o);
  }
  bytes(b: Buffer | null): void {
    if (b === null) {
      this.o = this.buf.writeInt32BE(-1, this.o);
      return;
    }
    this.ensure(b.length + 4);
    this.o = this.buf.writeInt32BE(b.length, this.o);
    this.o += b.copy(this.buf, this.o);
  }
  trailer(): void {
    this.ensure(2);
    this.o = this.buf.writeInt16BE(-1, this.o);
  }
}
