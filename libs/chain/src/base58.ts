/**
 * Base58 (the Bitcoin alphabet) fast enough for history from transactions: every
 * instruction of every transaction travels as base58 and every address is shown in it,
 * and `bs58`, one digit times one byte at a time, takes longer over an event's 160 bytes
 * than the rest of the transaction's decoding. Here digits go four at a time (58^4 fits
 * in 24 bits) and bytes three at a time, in 24-bit limbs, so every product stays an
 * exact double: a few thousand multiply-adds for an event instead of tens of thousands.
 *
 * The carry chain is the cost, so no division sits in it: a quotient by 2^24 is a
 * multiplication by 2^-24 (exact), one by 58^4 a multiplication by its reciprocal put
 * right by at most one. Limbs and output characters go to scratch arrays kept between
 * calls (both functions are synchronous), so a call allocates only its result.
 */
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DIGIT[ALPHABET.charCodeAt(i)] = i;
const CHAR = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ONE = 0x31;
const POW58 = [1, 58, 58 * 58, 58 * 58 * 58, 58 * 58 * 58 * 58];
const LIMB = 0x100_0000;
const INV_LIMB = 1 / LIMB;
const DIGITS_PER_LIMB = 4;
const BASE = 58 ** DIGITS_PER_LIMB;
const INV_BASE = 1 / BASE;

let limbScratch = new Float64Array(128);
let charScratch = Buffer.allocUnsafeSlow(512);

function limbs(count: number): Float64Array {
  if (limbScratch.length < count) limbScratch = new Float64Array(count * 2);
  return limbScratch;
}

/** The bytes of a base58 string; throws a RangeError on a character outside the alphabet. */
export function decodeBase58(text: string): Uint8Array {
  const n = text.length;
  let zeros = 0;
  while (zeros < n && text.charCodeAt(zeros) === ONE) zeros++;
  // log(58) / log(2^24) limbs per digit, rounded up.
  const limb = limbs(Math.ceil(((n - zeros) * 5.858) / 24) + 1);
  let used = 0;
  // A short first chunk, so the rest are whole.
  const head = (n - zeros) % DIGITS_PER_LIMB;
  for (let i = zeros, take = head === 0 ? DIGITS_PER_LIMB : head; i < n; take = DIGITS_PER_LIMB) {
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
      const t = limb[j]! * mul + carry;
      carry = Math.floor(t * INV_LIMB);
      limb[j] = t - carry * LIMB;
    }
    while (carry > 0) {
      const next = Math.floor(carry * INV_LIMB);
      limb[used++] = carry - next * LIMB;
      carry = next;
    }
  }
  // Big-endian bytes of the limbs after the leading '1's; the top limb (never 0) without its zero bytes.
  const top = used > 0 ? limb[used - 1]! : 0;
  const topZeros = used === 0 ? 0 : top < 0x100 ? 2 : top < 0x10000 ? 1 : 0;
  const out = new Uint8Array(zeros + used * 3 - topZeros);
  let w = out.length;
  for (let j = 0; j < used - 1; j++) {
    const v = limb[j]!;
    out[--w] = v & 0xff;
    out[--w] = (v >>> 8) & 0xff;
    out[--w] = v >>> 16;
  }
  if (used > 0) {
    out[--w] = top & 0xff;
    if (topZeros < 2) out[--w] = (top >>> 8) & 0xff;
    if (topZeros < 1) out[--w] = top >>> 16;
  }
  return out;
}

/** The base58 text of `bytes` (the same as bs58.encode). */
export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // Limbs of 58^4, little-endian; log(256) / log(58^4) limbs per byte, rounded up.
  const limb = limbs(Math.ceil(((n - zeros) * 1.3657) / DIGITS_PER_LIMB) + 2);
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
      const t = limb[j]! * mul + carry;
      // t < 2^48: the reciprocal's quotient is off by at most one.
      let q = Math.floor(t * INV_BASE);
      let r = t - q * BASE;
      if (r < 0) {
        q--;
        r += BASE;
      } else if (r >= BASE) {
        q++;
        r -= BASE;
      }
      limb[j] = r;
      carry = q;
    }
    while (carry > 0) {
      const q = Math.floor(carry / BASE);
      limb[used++] = carry - q * BASE;
      carry = q;
    }
  }
  const length = zeros + used * DIGITS_PER_LIMB;
  if (charScratch.length < length) charScratch = Buffer.allocUnsafeSlow(length * 2);
  const out = charScratch;
  out.fill(ONE, 0, zeros);
  let w = zeros;
  for (let j = used - 1; j >= 0; j--) {
    let v = limb[j]! | 0;
    const d3 = v % 58;
    v = (v - d3) / 58;
    const d2 = v % 58;
    v = (v - d2) / 58;
    const d1 = v % 58;
    const d0 = (v - d1) / 58;
    // The top limb is written without its leading zero digits.
    const top = j === used - 1;
    if (!top || d0 !== 0) out[w++] = CHAR[d0]!;
    if (!top || d0 !== 0 || d1 !== 0) out[w++] = CHAR[d1]!;
    if (!top || d0 !== 0 || d1 !== 0 || d2 !== 0) out[w++] = CHAR[d2]!;
    out[w++] = CHAR[d3]!;
  }
  return out.toString('latin1', 0, w);
}
