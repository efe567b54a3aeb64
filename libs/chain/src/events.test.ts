import bs58 from 'bs58';
import {
  decodeDeployArgs,
  decodeOreEvent,
  encodeDeployArgs,
  encodeDeployEvent,
  encodeResetEvent,
  logInstructionData,
  RESET_EVENT_LENGTHS,
  varValueFromLogs,
  type ResetEventLength,
} from './events';

/** A 144-byte ResetEvent written field by field at the offsets of SPEC 3.2, independently of the encoder. */
function handBuiltReset(): Uint8Array {
  const buf = Buffer.alloc(144);
  buf.writeBigUInt64LE(0n, 0);
  buf.writeBigUInt64LE(123_456n, 8);
  buf.writeBigUInt64LE(250_000_000n, 16);
  buf.writeBigUInt64LE(250_000_150n, 24);
  buf.writeBigUInt64LE(17n, 32);
  buf.fill(7, 40, 72);
  buf.writeBigUInt64LE(412n, 72);
  buf.writeBigUInt64LE(5_000_000_000n, 80);
  buf.writeBigUInt64LE(15_000_000_000n, 88);
  buf.writeBigUInt64LE(1_300_000_000n, 96);
  buf.writeBigUInt64LE(13_400_000_000n, 104);
  buf.writeBigUInt64LE(120_000_000_000n, 112);
  buf.writeBigInt64LE(1_790_000_000n, 120);
  buf.writeBigUInt64LE(0xdead_beef_0000_0001n, 128);
  buf.writeBigUInt64LE(600_000_000n, 136);
  return new Uint8Array(buf);
}

/** A 120-byte DeployEvent built by hand. */
function handBuiltDeploy(): Uint8Array {
  const buf = Buffer.alloc(120);
  buf.writeBigUInt64LE(2n, 0);
  buf.fill(1, 8, 40);
  buf.writeBigUInt64LE(25_000_000n, 40);
  buf.writeBigUInt64LE(0b1_0000_0000_0000_0000_0000_0101n, 48);
  buf.writeBigUInt64LE(123_456n, 56);
  buf.fill(2, 64, 96);
  buf.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 96);
  buf.writeBigUInt64LE(3n, 104);
  buf.writeBigInt64LE(1_790_000_000n, 112);
  return new Uint8Array(buf);
}

describe('ORE events', () => {
  it('reads a 144-byte ResetEvent at the program\'s offsets', () => {
    expect(decodeOreEvent(handBuiltReset())).toEqual({
      kind: 'reset',
      length: 144,
      roundId: 123_456,
      startSlot: 250_000_000,
      endSlot: 250_000_150,
      winningSquare: 17,
      topMiner: bs58.encode(new Uint8Array(32).fill(7)),
      minersField: 412,
      motherlode: 5_000_000_000,
      totalDeployed: 15_000_000_000,
      totalVaulted: 1_300_000_000,
      totalWinnings: 13_400_000_000,
      totalMinted: 120_000_000_000,
      ts: 1_790_000_000,
      rng: 0xdead_beef_0000_0001n,
      deployedWinningSquare: 600_000_000,
    });
  });

  it('reads a DeployEvent, manual strategy as null', () => {
    expect(decodeOreEvent(handBuiltDeploy())).toEqual({
      kind: 'deploy',
      authority: bs58.encode(new Uint8Array(32).fill(1)),
      amount: 25_000_000,
      mask: 0b1_0000_0000_0000_0000_0000_0101,
      roundId: 123_456,
      signer: bs58.encode(new Uint8Array(32).fill(2)),
      strategy: null,
      totalSquares: 3,
      ts: 1_790_000_000,
    });
  });

  it.each(RESET_EVENT_LENGTHS.map((l) => [l]))('writes and reads back the %i-byte ResetEvent, fields the layout lacks as null', (length: ResetEventLength) => {
    const event = decodeOreEvent(
      encodeResetEvent({
        length,
        roundId: 9,
        startSlot: 100,
        endSlot: 250,
        winningSquare: null,
        topMiner: new Uint8Array(32).fill(3),
        minersField: 40,
        motherlode: 7,
        totalDeployed: 1000,
        totalVaulted: 10,
        totalWinnings: 990,
        totalMinted: 0,
        ts: -5,
        rng: 11n,
        deployedWinningSquare: 12,
      }),
    );
    expect(event).toMatchObject({ kind: 'reset', length, roundId: 9, winningSquare: null, totalDeployed: 1000, totalVaulted: 10, totalWinnings: 990, ts: -5 });
    expect(event).toMatchObject({
      minersField: length >= 120 ? 40 : null,
      motherlode: length >= 128 ? 7 : null,
      rng: length >= 136 ? 11n : null,
      deployedWinningSquare: length >= 144 ? 12 : null,
    });
  });

  it('writes a DeployEvent the decoder reads back', () => {
    const input = { authority: new Uint8Array(32).fill(9), amount: 5, mask: 0x1ffffff, roundId: 3, signer: new Uint8Array(32).fill(8), strategy: 1, totalSquares: 25, ts: 77 };
    expect(decodeOreEvent(encodeDeployEvent(input))).toEqual({ ...input, kind: 'deploy', authority: bs58.encode(input.authority), signer: bs58.encode(input.signer) });
  });

  it('ignores other events and lengths no era wrote (the 40-byte MotherlodeEvent also had discriminator 2)', () => {
    const motherlode = Buffer.alloc(40);
    motherlode.writeBigUInt64LE(2n, 0);
    expect(decodeOreEvent(new Uint8Array(motherlode))).toBeNull();
    const bury = Buffer.alloc(48);
    bury.writeBigUInt64LE(1n, 0);
    expect(decodeOreEvent(new Uint8Array(bury))).toBeNull();
    expect(decodeOreEvent(handBuiltReset().subarray(0, 140))).toBeNull();
    expect(decodeOreEvent(new Uint8Array(4))).toBeNull();
  });

  it('refuses a winning square that is not a square', () => {
    const bytes = handBuiltReset();
    new DataView(bytes.buffer).setBigUint64(32, 25n, true);
    expect(() => decodeOreEvent(bytes)).toThrow('winning_square');
  });

  it('prefixes a Log instruction with its discriminator 8', () => {
    expect([...logInstructionData(new Uint8Array([1, 2]))]).toEqual([8, 1, 2]);
  });
});

describe('Deploy instruction data', () => {
  it('is [6] ++ amount u64 ++ squares u32, 13 bytes', () => {
    const data = encodeDeployArgs({ amount: 1_000_000, squares: 0b101 });
    expect(Buffer.from(data).toString('hex')).toBe('0640420f000000000005000000');
    expect(decodeDeployArgs(data)).toEqual({ amount: 1_000_000, squares: 0b101 });
  });

  it('is not read from other instructions', () => {
    expect(decodeDeployArgs(new Uint8Array([9]))).toBeNull();
    expect(decodeDeployArgs(new Uint8Array(13).fill(5))).toBeNull();
    expect(decodeDeployArgs(new Uint8Array(14).fill(6))).toBeNull();
  });
});

describe('the var value log', () => {
  const ORE = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';
  const OTHER = '3jSkUuYBoJzQPMEzTvkDFXCZUBksPamrVhrnHR9igu2X';
  const own = (...lines: string[]): string[] => [`Program ${ORE} invoke [1]`, ...lines, `Program ${ORE} success`];

  it('gives the 32 bytes reset logged, and null without the line', () => {
    const value = new Uint8Array(32).map((_, i) => i * 7);
    expect(varValueFromLogs(own('Program log: var seed: xyz', `Program log: var value: ${bs58.encode(value)}`), ORE)).toEqual(value);
    expect(varValueFromLogs(own('Program log: var value: 0OIl'), ORE)).toBeNull();
    expect(varValueFromLogs(own(`Program log: var value: ${bs58.encode(new Uint8Array(31))}`), ORE)).toBeNull();
    expect(varValueFromLogs(null, ORE)).toBeNull();
  });

  it('reads only the lines of the ORE program\'s own invocation, not those of a program it or the transaction called', () => {
    const value = new Uint8Array(32).fill(3);
    const forged = bs58.encode(new Uint8Array(32).fill(4));
    const logs = [
      `Program ${OTHER} invoke [1]`,
      `Program log: var value: ${forged}`,
      `Program ${OTHER} success`,
      `Program ${ORE} invoke [1]`,
      `Program ${OTHER} invoke [2]`,
      `Program log: var value: ${forged}`,
      `Program ${OTHER} success`,
      `Program log: var value: ${bs58.encode(value)}`,
      `Program ${ORE} success`,
    ];
    expect(varValueFromLogs(logs, ORE)).toEqual(value);
    // Outside any invocation (no runtime line says whose it is): nobody's.
    expect(varValueFromLogs([`Program log: var value: ${bs58.encode(value)}`], ORE)).toBeNull();
  });
});
