import { randomInt } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Source of uniformly random integers in [0, max); a port so tests can be deterministic. */
export type RandomInt = (max: number) => number;

const cryptoRandomInt: RandomInt = (max) => randomInt(max);

/**
 * `length` characters drawn uniformly from the base58 alphabet. Drawing characters
 * (rather than base58-encoding random bytes) gives a fixed length: encoded bytes vary
 * by a character depending on leading zeros.
 */
export function randomBase58(length: number, random: RandomInt = cryptoRandomInt): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE58[random(58)];
  return out;
}

/** `grid_` + 43 base58 characters: 43 * log2(58) = 251.9 bits of entropy. */
export const API_KEY_RE = /^grid_[1-9A-HJ-NP-Za-km-z]{43}$/;
export const SUBSCRIBER_ID_RE = /^sub_[1-9A-HJ-NP-Za-km-z]{22}$/;

export function newApiKey(random?: RandomInt): string {
  return `grid_${randomBase58(43, random)}`;
}

export function newSubscriberId(random?: RandomInt): string {
  return `sub_${randomBase58(22, random)}`;
}

export const PAYMENT_NONCE_RE = /^pay-[1-9A-HJ-NP-Za-km-z]{22}$/;
export const REISSUE_NONCE_RE = /^rei-[1-9A-HJ-NP-Za-km-z]{22}$/;

/** `pay-` (payment) or `rei-` (reissue) + 22 base58 characters. */
export function newNonce(kind: 'pay' | 'rei', random?: RandomInt): string {
  return `${kind}-${randomBase58(22, random)}`;
}
