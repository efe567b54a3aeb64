import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { decodeBase58, encodeBase58 } from './base58';

describe('base58', () => {
  it('encodes and decodes exactly as bs58, leading zeros included', () => {
    for (let length = 0; length <= 130; length++) {
      for (const zeros of [0, 1, 3]) {
        const bytes = new Uint8Array(randomBytes(length));
        bytes.fill(0, 0, Math.min(zeros, length));
        const text = bs58.encode(bytes);
        expect(encodeBase58(bytes)).toBe(text);
        expect(Buffer.from(decodeBase58(text)!)).toEqual(Buffer.from(bytes));
      }
    }
    expect(encodeBase58(new Uint8Array(32))).toBe('11111111111111111111111111111111');
  });

  it('refuses characters outside the alphabet', () => {
    expect(decodeBase58('abc0')).toBeNull();
    expect(decodeBase58('IlO')).toBeNull();
    expect(decodeBase58('ab✓')).toBeNull();
  });
});
