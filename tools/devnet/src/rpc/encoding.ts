import bs58 from 'bs58';
import type { AccountView } from '../chain/account-store';
import { invalidParams } from './rpc-error';

/** Solana's account JSON: data as [encoded, encoding]. */
export function accountJson(account: AccountView, encoding: string): Record<string, unknown> {
  return {
    data: encodeData(account.data, encoding),
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: 18446744073709551615,
    space: account.data.length,
  };
}

function encodeData(data: Uint8Array, encoding: string): [string, string] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  switch (encoding) {
    case 'base64':
    case 'jsonParsed':
      return [buf.toString('base64'), 'base64'];
    case 'base58':
      return [bs58.encode(buf), 'base58'];
    default:
      throw invalidParams(`unsupported encoding ${encoding}`);
  }
}

/** Reads a `{ encoding }` style config object (the last param), tolerating absence. */
export function configOf(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export type AccountFilter = (data: Uint8Array) => boolean;

/** getProgramAccounts filters: `{ dataSize }` and `{ memcmp: { offset, bytes } }` (base58 or base64). */
export function parseFilters(filters: unknown): AccountFilter[] {
  if (filters === undefined) return [];
  if (!Array.isArray(filters)) throw invalidParams('filters must be an array');
  return filters.map((f: unknown) => {
    const filter = configOf(f);
    if (typeof filter['dataSize'] === 'number') {
      const size = filter['dataSize'];
      return (data) => data.length === size;
    }
    const memcmp = configOf(filter['memcmp']);
    if (typeof memcmp['offset'] === 'number' && typeof memcmp['bytes'] === 'string') {
      const offset = memcmp['offset'];
      const bytes = memcmp['encoding'] === 'base64' ? Buffer.from(memcmp['bytes'], 'base64') : Buffer.from(bs58.decode(memcmp['bytes']));
      return (data) => offset + bytes.length <= data.length && bytes.every((b, i) => data[offset + i] === b);
    }
    throw invalidParams('unsupported filter');
  });
}
