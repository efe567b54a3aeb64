import { popcount } from '@gridlab/chain';
import type { StoredRow } from './row';

/**
 * A wallet's rows of one block of rounds, packed column by column (big-endian): n round
 * offsets from the block's start (int2), squares (int4), amount, sol_back, ore,
 * ore_motherlode, admin_fee, protocol_fee, ore_value (int8), signer_id, network_fee,
 * priority_fee, executor_fee, checkpoint_deposit (int4), slots_left, slots_left_last,
 * deploys, strategy, flags (int2), then the per-square amounts of the rows whose amounts
 * differ (int8 per square taken). -1 stands for null (no stored figure is negative),
 * an amount of -2 for "per square, below". A column of one wallet barely changes from
 * round to round, which is what lz4 finds (docs/miner-ledger-storage.md: ~22 bytes a row).
 */
export const BLOCK_ROUNDS = 1440;

const FIXED = 2 + 4 + 7 * 8 + 5 * 4 + 5 * 2;
const NULL = -1;
const PER_SQUARE = -2;

export function encodeBlock(blockStart: number, rows: readonly StoredRow[]): Buffer {
  const n = rows.length;
  let extra = 0;
  for (const r of rows) if (r.amount === null && r.amounts !== null) extra += 8 * r.amounts.length;
  const b = Buffer.alloc(FIXED * n + extra);
  let o = 0;
  const col = (width: 2 | 4 | 8, value: (r: StoredRow) => number | null) => {
    for (const r of rows) {
      const v = value(r) ?? NULL;
      if (width === 2) b.writeInt16BE(v, o);
      else if (width === 4) b.writeInt32BE(v, o);
      else b.writeBigInt64BE(BigInt(v), o);
      o += width;
    }
  };
  col(2, (r) => r.roundId - blockStart);
  col(4, (r) => r.squares);
  col(8, (r) => (r.amount !== null ? r.amount : r.amounts !== null ? PER_SQUARE : null));
  col(8, (r) => r.solBack);
  col(8, (r) => r.ore);
  col(8, (r) => r.oreMotherlode);
  col(8, (r) => r.adminFee);
  col(8, (r) => r.protocolFee);
  col(8, (r) => r.oreValue);
  col(4, (r) => r.signerId);
  col(4, (r) => r.networkFee);
  col(4, (r) => r.priorityFee);
  col(4, (r) => r.executorFee);
  col(4, (r) => r.checkpointDeposit);
  col(2, (r) => r.slotsLeft);
  col(2, (r) => r.slotsLeftLast);
  col(2, (r) => r.deploys);
  col(2, (r) => r.strategy);
  col(2, (r) => r.flags);
  for (const r of rows) {
    if (r.amount !== null || r.amounts === null) continue;
    for (const a of r.amounts) {
      b.writeBigInt64BE(BigInt(a), o);
      o += 8;
    }
  }
  return b;
}

/** The rows of a packed block, in round order. */
export function decodeBlock(minerId: number, blockStart: number, n: number, data: Buffer): StoredRow[] {
  if (data.length < FIXED * n) throw new RangeError(`a block of ${n} rows needs ${FIXED * n} bytes, has ${data.length}`);
  let o = 0;
  const col = (width: 2 | 4 | 8): (number | null)[] => {
    const out = new Array<number | null>(n);
    for (let i = 0; i < n; i++) {
      const v = width === 2 ? data.readInt16BE(o) : width === 4 ? data.readInt32BE(o) : Number(data.readBigInt64BE(o));
      out[i] = v === NULL ? null : v;
      o += width;
    }
    return out;
  };
  const round = col(2);
  const squares = col(4);
  const amount = col(8);
  const solBack = col(8);
  const ore = col(8);
  const oreMotherlode = col(8);
  const adminFee = col(8);
  const protocolFee = col(8);
  const oreValue = col(8);
  const signer = col(4);
  const networkFee = col(4);
  const priorityFee = col(4);
  const executorFee = col(4);
  const checkpointDeposit = col(4);
  // Non-null by construction: slots, deploys, strategy and flags are never stored as -1
  // except a strategy of -1 (manual), which is read back as such.
  const raw2 = (): number[] => {
    const out = new Array<number>(n);
    for (let i = 0; i < n; i++, o += 2) out[i] = data.readInt16BE(o);
    return out;
  };
  const slotsLeft = raw2();
  const slotsLeftLast = raw2();
  const deploys = raw2();
  const strategy = raw2();
  const flags = raw2();
  const rows: StoredRow[] = new Array<StoredRow>(n);
  for (let i = 0; i < n; i++) {
    let amounts: number[] | null = null;
    if (amount[i] === PER_SQUARE) {
      amounts = [];
      for (let k = popcount(squares[i]!); k > 0; k--, o += 8) amounts.push(Number(data.readBigInt64BE(o)));
    }
    rows[i] = {
      roundId: blockStart + round[i]!,
      minerId,
      signerId: signer[i]!,
      squares: squares[i]!,
      amount: amount[i] === PER_SQUARE ? null : amount[i]!,
      amounts,
      solBack: solBack[i]!,
      ore: ore[i]!,
      oreMotherlode: oreMotherlode[i]!,
      adminFee: adminFee[i]!,
      protocolFee: protocolFee[i]!,
      oreValue: oreValue[i]!,
      networkFee: networkFee[i]!,
      priorityFee: priorityFee[i]!,
      executorFee: executorFee[i]!,
      checkpointDeposit: checkpointDeposit[i]!,
      slotsLeft: slotsLeft[i]!,
      slotsLeftLast: slotsLeftLast[i]!,
      deploys: deploys[i]!,
      strategy: strategy[i]!,
      flags: flags[i]!,
    };
  }
  return rows;
}

export function blockStartOf(roundId: number): number {
  return roundId - (roundId % BLOCK_ROUNDS);
}
