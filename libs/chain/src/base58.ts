/**
 * Base58 (the Bitcoin alphabet) fast enough for history from transactions: every
 * instruction of every transaction travels as base58 and every address is shown in it,
 * and `bs58`, one digit times one byte at a time, takes longer over an event's 160 bytes
 * than the rest of the transaction's decoding. Here digits go four at a time (58^4 fits
 * in 24 bits) and bytes three at a time, in 24-bit limbs, so every product stays an
 * exact double: a few thousand multiply-adds for an event instead of tens of thousands.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const POW58 = [1, 58, 58 * 58, 58 * 58 * 58, 58 * 58 * 58 * 58];
const LIMB = 0x100_0000;

/** The bytes of a base58 string; throws a RangeError on a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array {
  const n = text.length;
  let zeros = 0;
  while (zeros < n && text.charCodeAt(zeros) === 0x31) zeros++;
  // log(58) / log(2^24) limbs per digit, rounded up.
  const limbs = new Float64Array(Math.ceil(((n - zeros) * 5.858) / 24) + 1);
  let used = 0;
  for (let i = zeros; i < n; ) {
    const take = Math.min(4, n - i);
    let chunk = 0;
    for (let k = 0; k < take; k++, i++) {
      const c = text.charCodeAt(i);
      const d = c < 128 ? DIGIT[c]! : -1;
      if (d < 0) throw new RangeError(`not a base58 character at ${i}`);
      chunk = chunk * 58 + d;
    }
    const mul = POW58[take]!;
    let carry = chunk;
    for (let j = 0; j < used; j++) {
      const t = limbs[j]! * mul + carry;
      carry = Math.floor(t / LIMB);
      limbs[j] = t - carry * LIMB;
    }
    while (carry > 0) {
      limbs[used++] = carry % LIMB;
      carry = Math.floor(carry / LIMB);
    }
  }
  // Big-endian bytes of the limbs, without leading zero bytes, after the leading '1's.
  const bytes = new Uint8Array(used * 3);
  let w = bytes.length;
  for (let j = 0; j < used; j++) {
    const v = limbs[j]!;
    bytes[--w] = v & 0xff;
    bytes[--w] = (v >>> 8) & 0xff;
    bytes[--w] = v >>> 16;
  }
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  const out = new Uint8Array(zeros + bytes.length - start);
  out.set(bytes.subarray(start), zeros);
  return out;
}

const DIGITS_PER_LIMB = 4;
const BASE = 58 ** DIGITS_PER_LIMB;

/** The base58 text of `bytes` (the same as bs58.encode). */
export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // Limbs of 58^4, little-endian; log(256) / log(58^4) limbs per byte, rounded up.
  const limbs = new Float64Array(Math.ceil(((n - zeros) * 1.3657) / DIGITS_PER_LIMB) + 2);
  let used = 0;
  // Leading bytes that do not fill a group of three go first, so the rest do.
  let i = zeros;
  const head = (n - zeros) % 3;
  for (let g = head === 0 ? 3 : head; i < n; g = 3) {
    let chunk = 0;
    for (let k = 0; k < g; k++) chunk = chunk * 256 + bytes[i++]!;
    const mul = g === 3 ? LIMB : g === 2 ? 0x10000 : 0x100;
    let carry = chunk;
    for (let j = 0; j < used; j++) {
      const t = limbs[j]! * mul + carry;
      carry = Math.floor(t / BASE);
      limbs[j] = t - carry * BASE;
    }
    while (carry > 0) {
      limbs[used++] = carry % BASE;
      carry = Math.floor(carry / BASE);
    }
  }
  let out = '1'.repeat(zeros);
  for (let j = used - 1; j >= 0; j--) {
    let v = limbs[j]!;
    const digits = [0, 0, 0, 0];
    for (let k = DIGITS_PER_LIMB - 1; k >= 0; k--) {
      digits[k] = v % 58;
      v = Math.floor(v / 58);
    }
    // The top limb is written without its leading zero digits.
    let k = 0;
    if (j === used - 1) while (k < DIGITS_PER_LIMB - 1 && digits[k] === 0) k++;
    for (; k < DIGITS_PER_LIMB; k++) out += ALPHABET[digits[k]!];
  }
  return out;
}
