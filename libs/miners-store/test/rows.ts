/** Test data of the ledger's tests: six wallets' rows of any round, deterministic but for the addresses. */
import { randomBytes } from 'node:crypto';
import type { MinerRound } from '@gridlab/contracts';
import bs58 from 'bs58';

export const T0 = Date.parse('2026-11-01T00:00:00Z');
export const wallets = Array.from({ length: 6 }, () => bs58.encode(randomBytes(32)));
const executor = bs58.encode(randomBytes(32));

/** Deterministic pseudo-random figures (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A round's rows: wallet i plays when (round + i) % 3 != 0; some rows partly unknown, some with per-square amounts. */
export function roundRows(roundId: number, settledAt: string, random: () => number): MinerRound[] {
  const rows: MinerRound[] = [];
  wallets.forEach((address, i) => {
    if ((roundId + i) % 3 === 0) return;
    const unknown = (roundId + i) % 17 === 0;
    const squares = [...new Set([i, (roundId * 7 + i) % 25, (roundId + 3 * i) % 25])].sort((a, b) => a - b);
    const uniform = (roundId + i) % 5 !== 0;
    const amounts = squares.map((_, k) => (uniform ? 1_000_000 * (i + 1) : 1_000_000 * (i + 1) + k * 137));
    const deployed = amounts.reduce((a, b) => a + b, 0);
    const solBack = unknown ? null : Math.floor(deployed * random() * 1.8);
    const held = squares.includes(roundId % 25);
    const automated = i === 5;
    rows.push({
      roundId,
      address,
      settledAt,
      payoutRule: roundId % 2 === 0 ? 'returns' : 'parimutuel',
      squares: unknown && i % 2 === 0 ? null : squares,
      amounts: unknown && i % 2 === 0 ? null : amounts,
      deployed: unknown && i % 2 === 0 ? null : deployed,
      deploys: 1 + (roundId % 2),
      signer: automated ? executor : address,
      automated,
      automationStrategy: automated ? (roundId % 4 === 0 ? null : 1) : null,
      slotsLeft: automated ? 1 : 10 + ((roundId * 13 + i) % 140),
      slotsLeftLast: automated ? 0 : 5,
      solBack,
      oreTopMiner: unknown ? null : held && i === 1 ? 100_000_000_000 : 0,
      oreSplit: unknown ? null : held && i === 2 ? 12_345 : 0,
      oreMotherlode: unknown ? null : held && roundId % 11 === 0 ? 7_000_000 : 0,
      topMiner: unknown ? null : held && i === 1,
      heldWinningSquare: unknown ? null : held,
      adminFee: unknown ? null : Math.floor(deployed / 100),
      protocolFee: unknown ? null : Math.floor(deployed / 50),
      networkFee: automated ? 0 : 5000,
      priorityFee: automated ? 0 : (roundId % 7) * 1000,
      executorFee: automated ? 2500 : 0,
      checkpointDeposit: roundId === 0 ? 10_000 : 0,
      net: null,
    });
    const row = rows[rows.length - 1]!;
    rows[rows.length - 1] = {
      ...row,
      net: row.deployed === null || row.solBack === null ? null : row.solBack - row.deployed - row.networkFee! - row.priorityFee! - row.executorFee!,
    };
  });
  return rows;
}
