/** Pure helpers of the Miners page: the address check, the squares heat map and the P&L curve. */
import type { MinerPerformance, MinerRound, TopMiners } from '@gridlab/client';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const SQUARES = 25;
const BUCKET_SECONDS = { hour: 3600, day: 86_400 } as const;

/** A window of the summaries and of the top miners. */
export type MinerWindowName = TopMiners['window'];

/** The windows, in the order the switches show them. */
export const WINDOWS: readonly { readonly value: MinerWindowName; readonly label: string }[] = [
  { value: '24h', label: '24 h' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: 'all', label: 'All time' },
];

/** Where a wallet's page is. */
export function minerHref(address: string): string {
  return `#/miners?address=${encodeURIComponent(address)}`;
}

/** How many bytes a base58 string decodes to (leading '1's are zero bytes); null when a character is not base58. */
function base58Bytes(text: string): number | null {
  const bytes: number[] = [];
  for (const char of text) {
    let carry = BASE58.indexOf(char);
    if (carry < 0) return null;
    for (let i = 0; i < bytes.length; i++) {
      carry += bytes[i]! * 58;
      bytes[i] = carry & 0xff;
      carry >>= 8;
    }
    for (; carry > 0; carry >>= 8) bytes.push(carry & 0xff);
  }
  let zeros = 0;
  while (text[zeros] === '1') zeros++;
  return zeros + bytes.length;
}

/**
 * A typed wallet address, checked as Solana does (base58 of a 32-byte public key): the
 * address, or a sentence saying what is wrong with it.
 */
export function checkAddress(input: string): { readonly address: string } | { readonly error: string } {
  const text = input.trim();
  if (text === '') return { error: 'Enter a wallet address.' };
  const bad = [...text].find((c) => !BASE58.includes(c));
  if (bad !== undefined) return { error: `Not a Solana address: "${bad}" is not a base58 character (base58 has no 0, O, I, l, spaces or punctuation).` };
  if (text.length < 32 || text.length > 44) return { error: `Not a Solana address: it has ${text.length} characters, an address has 32 to 44.` };
  if (base58Bytes(text) !== 32) return { error: 'Not a Solana address: it does not decode to a 32-byte public key.' };
  return { address: text };
}

/** A wallet shortened for tables: `AbCd…wXyZ`. */
export function shortAddress(address: string): string {
  return address.length <= 12 ? address : `${address.slice(0, 4)}…${address.slice(-4)}`;
}

/** Per square (0..24): the rounds a wallet put SOL on it and the lamports it put there. */
export interface SquareHeat {
  readonly rounds: readonly number[];
  readonly lamports: readonly number[];
  /** Rows counted (their squares are known). */
  readonly known: number;
  /** Rows whose squares the chain does not show: left out. */
  readonly unknown: number;
}

/** The squares a wallet plays, from the ledger rows loaded so far. */
export function squareHeat(rows: readonly MinerRound[]): SquareHeat {
  const rounds = new Array<number>(SQUARES).fill(0);
  const lamports = new Array<number>(SQUARES).fill(0);
  let known = 0;
  for (const row of rows) {
    if (row.squares === null) continue;
    known++;
    row.squares.forEach((square, i) => {
      if (square < 0 || square >= SQUARES) return;
      rounds[square]! += 1;
      lamports[square]! += row.amounts?.[i] ?? 0;
    });
  }
  return { rounds, lamports, known, unknown: rows.length - known };
}

/** ORE base units a row won, all sources (null figures count 0). */
export function rowOre(row: MinerRound): number {
  return (row.oreTopMiner ?? 0) + (row.oreSplit ?? 0) + (row.oreMotherlode ?? 0);
}

/**
 * The cumulative net SOL as a curve: 0 at the start of the first bucket, then each
 * bucket's running total at its end (the current bucket's end is `nowMs`, not the
 * future). x in Unix seconds, y in SOL.
 */
export function netCurve(performance: Pick<MinerPerformance, 'bucket' | 'points'>, nowMs: number): { readonly x: number[]; readonly y: number[] } {
  const first = performance.points[0];
  if (first === undefined) return { x: [], y: [] };
  const length = BUCKET_SECONDS[performance.bucket];
  const now = Math.floor(nowMs / 1000);
  const x = [Date.parse(first.start) / 1000];
  const y = [0];
  for (const point of performance.points) {
    x.push(Math.min(Date.parse(point.start) / 1000 + length, Math.max(now, x[x.length - 1]!)));
    y.push(point.cumulativeNet / 1e9);
  }
  return { x, y };
}

/** The file name of a ledger export. */
export function exportFileName(address: string, format: 'csv' | 'ndjson'): string {
  return `gridlab-miner-${address}.${format}`;
}
