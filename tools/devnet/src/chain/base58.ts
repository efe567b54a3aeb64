/**
 * Base58 (Bitcoin alphabet) through BigInt arithmetic nine digits at a time: the same
 * strings as bs58, several times faster on the 100-byte payloads of event data. The
 * devnet encodes millions of them when a client reads history, so it matters here.
 */
import bs58 from 'bs58';

/** Below this many bytes bs58's byte loop is the faster one. */
const SMALL = 32;
const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const DIGITS_PER_CHUNK = 9;
/** 58^9 < 2^53: a chunk's value is an exact Number. */
const CHUNK = 58n ** 9n;
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

export function encodeBase58(bytes: Uint8Array): string {
  if (bytes.length < SMALL) return bs58.encode(bytes);
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  let out = '';
  if (zeros < bytes.length) {
    let n = BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
    const digits: number[] = [];
    while (n > 0n) {
      let chunk = Number(n % CHUNK);
      n /= CHUNK;
      for (let i = 0; i < DIGITS_PER_CHUNK; i++) {
        digits.push(chunk % 58);
        chunk = Math.floor(chunk / 58);
      }
    }
    let top = digits.length - 1;
    while (top >= 0 && digits[top] === 0) top--;
    for (let i = top; i >= 0; i--) out += ALPHABET[digits[i]!];
  }
  return '1'.repeat(zeros) + out;
}

/** The bytes of a base58 string, or null when it is not one. */
export function decodeBase58(text: string): Uint8Array | null {
  if (text.length < 44) {
    try {
      return bs58.decode(text);
    } catch {
      return null;
    }
  }
  let zeros = 0;
  while (zeros < text.length && text.charCodeAt(zeros) === 49) zeros++;
  let n = 0n;
  for (let i = zeros; i < text.length; i += DIGITS_PER_CHUNK) {
    const end = Math.min(text.length, i + DIGITS_PER_CHUNK);
    let value = 0;
    for (let j = i; j < end; j++) {
      const code = text.charCodeAt(j);
      const digit = code < 128 ? VALUES[code]! : -1;
      if (digit < 0) return null;
      value = value * 58 + digit;
    }
    n = n * 58n ** BigInt(end - i) + BigInt(value);
  }
  if (n === 0n) return new Uint8Array(zeros);
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  const out = new Uint8Array(zeros + hex.length / 2);
  out.set(Buffer.from(hex, 'hex'), zeros);
  return out;
}
