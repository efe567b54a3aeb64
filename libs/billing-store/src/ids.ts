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

/** `grid_` + 43 base58 characters (API_KEY_RE of @gridlab/contracts). */
export function newApiKey(random?: RandomInt): string {
  return `grid_${randomBase58(43, random)}`;
}

/** `sub_` + 22 base58 characters (SUBSCRIBER_ID_RE of @gridlab/contracts). */
export function newSubscriberId(random?: RandomInt): string {
  return `sub_${randomBase58(22, random)}`;
}

/** `pay-` (payment) or `rei-` (reissue) + 22 base58 characters (PAYMENT_NONCE_RE, REISSUE_NONCE_RE of @gridlab/contracts). */
export function newNonce(kind: 'pay' | 'rei', random?: RandomInt): string {
  return `${kind}-${randomBase58(22, random)}`;
}
