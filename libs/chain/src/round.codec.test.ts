import { DecodeError } from '@gridlab/errors';
import bs58 from 'bs58';
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

/** The split address's 32 bytes, written out (base58 `SpLiT1111…1112`). */
const SPLIT_HEX = '069d0c318759b1e6736f299e774dfefd381d7c5cd8512f10c8918e0000000001';

/** A 952-byte round built field by field at the offsets of SPEC 3, independently of encodeRound. */
function handBuiltCurrentRound(options: { split?: boolean; voided?: boolean } = {}): Uint8Array {
  const buf = Buffer.alloc(952);
  buf[0] = 109;
  buf.writeBigUInt64LE(9001n, 8);
  for (let i = 0; i < 25; i++) {
    buf.writeBigUInt64LE(options.voided ? 0n : BigInt(2_000_000 * (i + 1)), 16 + 8 * i); // deployed
    buf.writeBigUInt64LE(BigInt(70 + i), 216 + 8 * i); // mass
    buf.writeBigUInt64LE(BigInt(i + 5), 416 + 8 * i); // count
    buf.writeBigUInt64LE(i === 7 ? 100_000_000_000n : 0n, 696 + 8 * i); // rewards
  }
  if (options.voided) buf.fill(0xff, 616, 648);
  else for (let i = 0; i < 32; i++) buf[616 + i] = 200 - i; // slot hash
  buf.writeBigUInt64LE(123_456n, 648); // expires_at
  buf.writeBigUInt64LE(40_000_000_000n, 656); // motherlode
  buf.fill(6, 664, 696); // rent_payer
  buf.writeBigUInt64LE(4321n, 896); // total_vaulted
  buf.writeBigUInt64LE(options.voided ? 650_000_000n : 8765n, 904); // total_winnings
  buf.writeBigUInt64LE(444n, 912); // total_miners
  if (options.split) Buffer.from(SPLIT_HEX, 'hex').copy(buf, 920);
  else buf.fill(9, 920, 952); // top_miner
  return new Uint8Array(buf);
}

describe('decodeRound, 952-byte layout', () => {
  it('reads every field at its offset', () => {
    const round = decodeRound(handBuiltCurrentRound());
    expect(round.layout).toBe(952);
    expect(round.id).toBe(9001);
    expect(round.deployed[0]).toBe(2_000_000);
    expect(round.deployed[24]).toBe(50_000_000);
    expect(round.mass?.[0]).toBe(70);
    expect(round.mass?.[24]).toBe(94);
    expect(round.count[0]).toBe(5);
    expect(round.count[24]).toBe(29);
    expect(Array.from(round.slotHash.subarray(0, 2))).toEqual([200, 199]);
    expect(round.slotHash[31]).toBe(169);
    expect(round.expiresAt).toBe(123_456);
    expect(round.motherlode).toBe(40_000_000_000);
    expect(round.rentPayer).toBe(bs58.encode(new Uint8Array(32).fill(6)));
    expect(round.rewards?.[7]).toBe(100_000_000_000);
    expect(round.topMinerReward).toBe(100_000_000_000);
    expect(round.totalVaulted).toBe(4321);
    expect(round.totalWinnings).toBe(8765);
    expect(round.totalMiners).toBe(444);
    expect(round.topMiner).toBe(bs58.encode(new Uint8Array(32).fill(9)));
    expect(round.split).toBe(false);
    // No total_deployed field: the sum of deployed, 2e6 * (1 + ... + 25).
    expect(round.totalDeployed).toBe(650_000_000);
  });

  it('recognises the split address as top miner', () => {
    const round = decodeRound(handBuiltCurrentRound({ split: true }));
    expect(round.topMiner).toBe('SpLiT11111111111111111111111111111111111112');
    expect(round.split).toBe(true);
  });

  it('takes a voided round\'s refund as its total deployed (the program zeroes deployed)', () => {
    const round = decodeRound(handBuiltCurrentRound({ voided: true }));
    expect(round.deployed.every((d) => d === 0)).toBe(true);
    expect(round.totalWinnings).toBe(650_000_000);
    expect(round.totalDeployed).toBe(650_000_000);
  });

  it('round-trips through encodeRound', () => {
    for (const options of [{}, { split: true }, { voided: true }]) {
      const original = decodeRound(handBuiltCurrentRound(options));
      const again = decodeRound(
        encodeRound(
          {
            ...original,
            rentPayer: bs58.decode(original.rentPayer),
            topMiner: bs58.decode(original.topMiner),
            totalMiners: original.totalMiners ?? 0,
            mass: original.mass ?? [],
            rewards: original.rewards ?? [],
          },
          952,
        ),
      );
      expect(again).toEqual(original);
    }
  });
});

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
            mass: [],
            rewards: [],
          },
          length,
        ),
      );
      expect(again).toEqual(original);
    }
  });

  it('rejects a length no program version writes', () => {
    const odd = new Uint8Array(953);
    odd[0] = 109;
    expect(() => decodeRound(odd)).toThrow(expect.objectContaining({ code: 'unknown_account_length' }));
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
    expect(decodeBoard(new Uint8Array(buf))).toEqual({ roundId: 12, startSlot: 1000, endSlot: null, epochOrCost: 3 });
    const legacy = new Uint8Array(buf.subarray(0, 32));
    expect(decodeBoard(legacy)).toEqual({ roundId: 12, startSlot: 1000, endSlot: null, epochOrCost: null });
  });

  it('round-trips and rejects other lengths', () => {
    const board = { roundId: 5, startSlot: 100, endSlot: 250, epochOrCost: 1 };
    expect(decodeBoard(encodeBoard(board))).toEqual(board);
    expect(() => decodeBoard(new Uint8Array(33))).toThrow(expect.objectContaining({ code: 'unknown_account_length' }));
  });
});
