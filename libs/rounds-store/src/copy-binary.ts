import type { Round } from '@gridlab/contracts';
import { packSquares } from './packing';

/** Columns of indexer.rounds in table order, as COPY and INSERT list them. */
export const ROUND_COLUMNS = [
  'id',
  'deployed',
  'count',
  'winning_square',
  'total_deployed',
  'total_winnings',
  'total_vaulted',
  'total_miners',
  'motherlode',
  'top_miner_reward',
  'slot_hash',
  'settled_at',
] as const;

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const TWO_32 = 0x1_0000_0000;
/** PostgreSQL timestamps count microseconds from 2000-01-01T00:00:00Z. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
const ROW_BYTES = 2 + ROUND_COLUMNS.length * 4 + 8 + 200 + 200 + 2 + 6 * 8 + 32 + 8;

/**
 * Encodes rounds in PostgreSQL's binary COPY format: no text parsing of integers or
 * hex on the server, which is what makes bulk import fast.
 */
export function encodeCopyBinary(rounds: readonly Round[]): Buffer {
  const buf = Buffer.allocUnsafe(SIGNATURE.length + 8 + rounds.length * ROW_BYTES + 2);
  let o = SIGNATURE.copy(buf, 0);
  o = buf.writeInt32BE(0, o);
  o = buf.writeInt32BE(0, o);
  const int8 = (v: number): void => {
    o = buf.writeInt32BE(8, o);
    o = buf.writeInt32BE(Math.floor(v / TWO_32), o);
    o = buf.writeUInt32BE(v % TWO_32 >>> 0, o);
  };
  const bytes = (b: Buffer): void => {
    o = buf.writeInt32BE(b.length, o);
    o += b.copy(buf, o);
  };
  for (const r of rounds) {
    o = buf.writeInt16BE(ROUND_COLUMNS.length, o);
    int8(r.id);
    bytes(packSquares(r.deployed));
    bytes(packSquares(r.count));
    if (r.winningSquare === null) {
      o = buf.writeInt32BE(-1, o);
    } else {
      o = buf.writeInt32BE(2, o);
      o = buf.writeInt16BE(r.winningSquare, o);
    }
    int8(r.totalDeployed);
    int8(r.totalWinnings);
    int8(r.totalVaulted);
    int8(r.totalMiners);
    int8(r.motherlode);
    int8(r.topMinerReward);
    o = buf.writeInt32BE(32, o);
    o += buf.write(r.slotHash, o, 32, 'hex');
    const micros = (Date.parse(r.settledAt) - PG_EPOCH_MS) * 1000;
    int8(micros);
  }
  o = buf.writeInt16BE(-1, o);
  return buf.subarray(0, o);
}
