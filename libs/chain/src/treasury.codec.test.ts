import { decodeTreasury, encodeTreasury } from './treasury.codec';

describe('Treasury account', () => {
  it('reads the motherlode pool of every layout the program has written', () => {
    for (const [length, offset] of [
      [48, 8],
      [96, 24],
      [80, 16],
    ] as const) {
      const buf = Buffer.alloc(length);
      buf[0] = 104;
      buf.writeBigUInt64LE(123_400_000_000n, offset);
      expect(decodeTreasury(new Uint8Array(buf))).toEqual({ motherlode: 123_400_000_000 });
    }
  });

  it('writes what it reads, and refuses other lengths and discriminators', () => {
    expect(decodeTreasury(encodeTreasury({ motherlode: 7 }))).toEqual({ motherlode: 7 });
    expect(() => decodeTreasury(new Uint8Array(40))).toThrow('unknown length 40');
    const wrong = encodeTreasury({ motherlode: 1 });
    wrong[0] = 105;
    expect(() => decodeTreasury(wrong)).toThrow('discriminator');
  });
});
