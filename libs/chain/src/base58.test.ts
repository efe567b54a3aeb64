import bs58 from 'bs58';
import fc from 'fast-check';
import { decodeBase58, encodeBase58 } from './base58';

describe('decodeBase58', () => {
  it('decodes what bs58 encodes, leading zeros and all', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 5 }), (bytes, zeros) => {
        const input = new Uint8Array([...new Array<number>(zeros).fill(0), ...bytes]);
        expect(Buffer.from(decodeBase58(bs58.encode(input))).toString('hex')).toBe(Buffer.from(input).toString('hex'));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with bs58 on edge values', () => {
    for (const text of ['', '1', '11', '2', 'z', '21', '1112', 'zzzzzzzzzzzz', 'SpLiT11111111111111111111111111111111111112']) {
      expect(Buffer.from(decodeBase58(text)).toString('hex')).toBe(Buffer.from(bs58.decode(text)).toString('hex'));
    }
  });

  it('refuses characters outside the alphabet', () => {
    for (const text of ['0', 'O', 'I', 'l', 'a b', 'é']) expect(() => decodeBase58(text)).toThrow(RangeError);
  });
});

describe('encodeBase58', () => {
  it('writes what bs58 writes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 5 }), (bytes, zeros) => {
        const input = new Uint8Array([...new Array<number>(zeros).fill(0), ...bytes]);
        expect(encodeBase58(input)).toBe(bs58.encode(input));
      }),
      { numRuns: 2000 },
    );
    for (const bytes of [[], [0], [0, 0], [1], [57], [58], [255], [0, 255, 255], new Array(32).fill(255)]) {
      expect(encodeBase58(Uint8Array.from(bytes))).toBe(bs58.encode(Uint8Array.from(bytes)));
    }
  });
});
