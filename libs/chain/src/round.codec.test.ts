import { DecodeError } from '@gridlab/errors';
import { decodeRound, encodeRound } from './round.codec';
import { decodeBoard, encodeBoard } from './board.codec';

/** Builds a round account byte by byte, independently of encodeRound. */
function handBuiltRound(length: 560 | 568): Uint8Array {
  const buf = Buffer.alloc(length);
  buf[0] = 109;
  buf.writeBigUInt64LE(4242n, 8);
  for (let i = 0; i < 25; i++) {
    buf.writeBigUInt64LE(BigInt(1_000_000 * (i + 1)), 16 + 8 * i);
    buf.writeBigUInt64LE(BigInt(i + 2), 248 + 8 * i);
  }
  for (let i = 0; i < 32; i++) buf[216 + i] = i + 1;
  buf.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 448);
  buf.writeBigUInt64LE(77n, 456);
  buf.fill(3, 464, 496);
  buf.fill(4, 496, 528);
  buf.writeBigUInt64LE(5n, 528);
  buf.writeBigUInt64LE(325_000_000n, 536);
  if (length === 568) {
    buf.writeBigUInt64LE(375n, 544);
    buf.writeBigUInt64LE(1234n, 552);
    buf.writeBigUInt64LE(5678n, 560);
  } else {
    buf.writeBigUInt64LE(1234n, 544);
    buf.writeBigUInt64LE(5678n, 552);
  }
  return new Uint8Array(buf);
}

describe('decodeRound', () => {
  it('decodes every field of the 568-byte layout', () => {
    const round = decodeRound(handBuiltRound(568));
    expect(round.layout).toBe(568);
    expect(round.id).toBe(4242);
    expect(round.deployed[0]).toBe(1_000_000);
    expect(round.deployed[24]).toBe(25_000_000);
    expect(round.count[0]).toBe(2);
    expect(round.count[24]).toBe(26);
    expect(Array.from(round.slotHash.subarray(0, 3))).toEqual([1, 2, 3]);
    expect(round.expiresAt).toBeNull();
    expect(round.motherlode).toBe(77);
    expect(round.topMinerReward).toBe(5);
    expect(round.totalDeployed).toBe(325_000_000);
    expect(round.totalMiners).toBe(375);
    expect(round.totalVaulted).toBe(1234);
    expect(round.totalWinnings).toBe(5678);
  });

  it('decodes the 560-byte layout, which has no total_miners', () => {
    const round = decodeRound(handBuiltRound(560));
    expect(round.layout).toBe(560);
    expect(round.totalMiners).toBeNull();
    expect(round.totalVaulted).toBe(1234);
    expect(round.totalWinnings).toBe(5678);
  });

  it('round-trips through encodeRound in both layouts', () => {
    for (const length of [560, 568] as const) {
      const original = decodeRound(handBuiltRound(length));
      const again = decodeRound(
        encodeRound(
          {
            ...original,
            rentPayer: new Uint8Array(32).fill(3),
            topMiner: new Uint8Array(32).fill(4),
            totalMiners: original.totalMiners ?? 0,
          },
          length,
        ),
      );
      expect(again).toEqual(original);
    }
  });

  it('reports the v4 layout by name instead of decoding it', () => {
    const v4 = new Uint8Array(952);
    v4[0] = 109;
    expect(() => decodeRound(v4)).toThrow(expect.objectContaining({ code: 'unsupported_program_version' }));
  });

  it.each([0, 8, 559, 561, 567, 569, 1000])('rejects a %i-byte account', (length) => {
    const data = new Uint8Array(length);
    data[0] = 109;
    expect(() => decodeRound(data)).toThrow(DecodeError);
    expect(() => decodeRound(data)).toThrow(expect.objectContaining({ code: 'unknown_account_length' }));
  });

  it('rejects a wrong discriminator and a dirty header', () => {
    const wrong = handBuiltRound(568);
    wrong[0] = 105;
    expect(() => decodeRound(wrong)).toThrow(expect.objectContaining({ code: 'bad_discriminator' }));
    const dirty = handBuiltRound(568);
    dirty[3] = 1;
    expect(() => decodeRound(dirty)).toThrow(expect.objectContaining({ code: 'bad_discriminator' }));
  });

  it('rejects lamport values above 2^53 rather than rounding them', () => {
    const data = handBuiltRound(568);
    Buffer.from(data.buffer).writeBigUInt64LE(2n ** 53n, 536);
    expect(() => decodeRound(data)).toThrow(expect.objectContaining({ code: 'value_out_of_range' }));
  });
});

describe('decodeBoard', () => {
  it('decodes both board lengths and maps u64::MAX end slot to null', () => {
    const buf = Buffer.alloc(40);
    buf[0] = 105;
    buf.writeBigUInt64LE(12n, 8);
    buf.writeBigUInt64LE(1000n, 16);
    buf.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 24);
    buf.writeBigUInt64LE(3n, 32);
    expect(decodeBoard(new Uint8Array(buf))).toEqual({ roundId: 12, startSlot: 1000, endSlot: null, epochId: 3 });
    const legacy = new Uint8Array(buf.subarray(0, 32));
    expect(decodeBoard(legacy)).toEqual({ roundId: 12, startSlot: 1000, endSlot: null, epochId: null });
  });

  it('round-trips and rejects other lengths', () => {
    const board = { roundId: 5, startSlot: 100, endSlot: 250, epochId: 1 };
    expect(decodeBoard(encodeBoard(board))).toEqual(board);
    expect(() => decodeBoard(new Uint8Array(33))).toThrow(expect.objectContaining({ code: 'unknown_account_length' }));
  });
});
