/**
 * The devnet's port of the ORE program held against outside truth: the golden vectors
 * worked from the program's source (fixtures/golden) and real mainnet bytes
 * (fixtures/mainnet). Fields are read from the real bytes here, by the struct order the
 * port transcribes, and written back by the port: the bytes must come out identical.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import bs58 from 'bs58';
import { deployData, deployEvent, logData, resetEvent } from './events';
import { hitsMotherlode, isSplitByRng, isSplitSquare, parimutuelReset, returnsReset, reverseBits, rng, topMinerSample, winningSquare } from './round-rules';
import { keccak_256 } from '@noble/hashes/sha3';
import { keccak256Of40 } from './keccak40';
import { PodReader } from './pod';
import { roundV4 } from './state';

const FIXTURES = join(__dirname, '../../../../fixtures');
const golden = JSON.parse(readFileSync(join(FIXTURES, 'golden/settlement.json'), 'utf8')) as {
  settlement: { name: string; rule: 'parimutuel' | 'returns'; deployed: number[]; winningSquare: number | null; expect: { adminFee: number; totalVaulted: number; totalWinnings: number } }[];
  draw: { rng: string; deployedWinningSquare: number; expect: { sample: string; motherlode: boolean } }[];
};
const SPLIT = 'SpLiT11111111111111111111111111111111111112';

describe('the port of the reset, against the golden vectors', () => {
  const settled = golden.settlement.filter((v) => v.winningSquare !== null);
  it.each(settled.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const reset = v.rule === 'returns' ? returnsReset : parimutuelReset;
    expect(reset(v.deployed, v.winningSquare!)).toEqual({ adminFee: v.expect.adminFee, totalVaulted: v.expect.totalVaulted, totalWinnings: v.expect.totalWinnings });
  });

  it.each(golden.draw.map((v) => [v.rng, v] as const))('draws the top miner and the motherlode from rng %s', (_rng, v) => {
    expect(topMinerSample(BigInt(v.rng), v.deployedWinningSquare).toString()).toBe(v.expect.sample);
    expect(hitsMotherlode(BigInt(v.rng), 500)).toBe(v.expect.motherlode);
  });

  it('reverses bits as u64::reverse_bits does', () => {
    expect(reverseBits(1n)).toBe(1n << 63n);
    expect(reverseBits(0xf0n)).toBe(0x0f00_0000_0000_0000n);
  });
});

/** A Round of 952 bytes read field by field in the order of `api/src/state/round.rs` (bd617d1). */
function readRound(bytes: Uint8Array) {
  const r = new PodReader(bytes);
  return {
    id: r.u64(),
    deployed: r.squares(),
    mass: r.squares(),
    count: r.squares(),
    slotHash: r.raw(),
    expiresAt: r.u64(),
    motherlode: r.u64(),
    rentPayer: r.raw(),
    rewards: r.squares(),
    totalVaulted: r.u64(),
    totalWinnings: r.u64(),
    totalMiners: r.u64(),
    topMiner: r.raw(),
  };
}

describe('the port, against settled mainnet rounds', () => {
  const load = (folder: string) =>
    readdirSync(join(FIXTURES, 'mainnet', folder))
      .filter((f) => f.startsWith('round_'))
      .map((f) => new Uint8Array(readFileSync(join(FIXTURES, 'mainnet', folder, f))));
  const rounds = [...load('rounds-952-parimutuel').map((b) => ['parimutuel', b] as const), ...load('accounts-2026-10').map((b) => ['returns', b] as const)];

  it.each(rounds.map(([rule, bytes]) => [readRound(bytes).id, rule, bytes] as const))('round %i (%s): its bytes, totals and prize split', (_id, rule, bytes) => {
    const r = readRound(bytes);
    expect(r.mass.every((m) => m === 0)).toBe(true);
    expect(Buffer.from(roundV4({ ...r, reward: r.rewards[0]! }))).toEqual(Buffer.from(bytes));
    const random = rng(r.slotHash)!;
    const w = winningSquare(random);
    const totals = rule === 'returns' ? returnsReset(r.deployed, w) : parimutuelReset(r.deployed, w);
    expect([totals.totalVaulted, totals.totalWinnings]).toEqual([r.totalVaulted, r.totalWinnings]);
    const split = rule === 'returns' ? isSplitSquare(r.id, w) : isSplitByRng(random);
    expect(split).toBe(bs58.encode(r.topMiner) === SPLIT);
  });
});

describe('the port, against a real reset transaction (round 52697, November 2025)', () => {
  const fixture = JSON.parse(readFileSync(join(FIXTURES, 'mainnet/transactions-2025-11/transactions.json'), 'utf8')) as {
    reset: { parsedData: { meta: { logMessages: string[]; innerInstructions: { instructions: { programId: string; data?: string }[] }[] } } }[];
  };
  const meta = fixture.reset[0]!.parsedData.meta;
  const logged = meta.innerInstructions.flatMap((i) => i.instructions).find((i) => i.programId === 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv' && i.data !== undefined)!;
  const data = bs58.decode(logged.data!);

  it('writes its 128-byte ResetEvent byte for byte from the fields in struct order, and its winning square from var value', () => {
    expect(data[0]).toBe(8);
    const event = data.subarray(1);
    expect(event.length).toBe(128);
    const view = new DataView(event.buffer, event.byteOffset, 128);
    const u64 = (i: number) => Number(view.getBigUint64(8 * i, true));
    // disc, round_id, start_slot, end_slot, winning_square, top_miner [32], num_winners, motherlode,
    // total_deployed, total_vaulted, total_winnings, total_minted, ts (event.rs at 6f0a956).
    const fields = {
      roundId: u64(1),
      startSlot: u64(2),
      endSlot: u64(3),
      winningSquare: u64(4),
      topMiner: event.slice(40, 72),
      miners: u64(9),
      motherlode: u64(10),
      totalDeployed: u64(11),
      totalVaulted: u64(12),
      totalWinnings: u64(13),
      totalMinted: u64(14),
      ts: u64(15),
      rng: 0n,
      deployedWinningSquare: 0,
    };
    expect(fields.roundId).toBe(52697);
    expect(Buffer.from(logData(resetEvent(fields, 128)))).toEqual(Buffer.from(data));
    const value = meta.logMessages.find((l) => l.startsWith('Program log: var value: '))!.slice('Program log: var value: '.length);
    expect(winningSquare(rng(bs58.decode(value))!)).toBe(fields.winningSquare);
  });

  it('writes Deploy instruction data as `[6] ++ amount u64 ++ squares u32`', () => {
    expect(Buffer.from(deployData(1_000_001, 0b101)).toString('hex')).toBe('06' + '41420f0000000000' + '05000000');
  });
});

describe('the port\'s events and split masks, against the golden vectors', () => {
  const vectors = JSON.parse(readFileSync(join(FIXTURES, 'golden/events.json'), 'utf8')) as {
    events: { name: string; length: number; fields: Record<string, number | string>; hex: string }[];
    splitMasks: { roundId: number; expect: number }[];
  };
  const MAX = '18446744073709551615';
  // The layouts the port writes: the 128- and 144-byte ResetEvents and the DeployEvent.
  const written = vectors.events.filter((v) => v.length === 144 || (v.length === 128 && v.fields['disc'] === 0) || v.fields['disc'] === 2);

  it.each(written.map((v) => [v.name, v] as const))('%s', (_name, v) => {
    const f = v.fields;
    const n = (name: string): number => Number(f[name]);
    if (f['disc'] === 2) {
      const bytes = deployEvent({
        authority: bs58.decode(String(f['authority'])),
        amount: n('amount'),
        mask: n('mask'),
        roundId: n('round_id'),
        signer: bs58.decode(String(f['signer'])),
        strategy: String(f['strategy']) === MAX ? null : n('strategy'),
        totalSquares: n('total_squares'),
        ts: n('ts'),
      });
      expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
      return;
    }
    const bytes = resetEvent(
      {
        roundId: n('round_id'),
        startSlot: n('start_slot'),
        endSlot: n('end_slot'),
        winningSquare: String(f['winning_square']) === MAX ? null : n('winning_square'),
        topMiner: bs58.decode(String(f['top_miner'])),
        miners: n(v.length === 144 ? 'total_miners' : 'num_winners'),
        motherlode: n('motherlode'),
        totalDeployed: n('total_deployed'),
        totalVaulted: n('total_vaulted'),
        totalWinnings: n('total_winnings'),
        totalMinted: n('total_minted'),
        ts: n('ts'),
        rng: BigInt(f['rng'] ?? 0),
        deployedWinningSquare: Number(f['deployed_winning_square'] ?? 0),
      },
      v.length as 128 | 144,
    );
    expect(Buffer.from(bytes).toString('hex')).toBe(v.hex);
  });

  it.each(vectors.splitMasks.map((v) => [v.roundId, v] as const))('splits round %d on the squares Round::distribution_mask leaves out', (_id, v) => {
    for (let s = 0; s < 25; s++) expect(isSplitSquare(v.roundId, s)).toBe(((v.expect >>> s) & 1) === 0);
  });
});

describe('the one-block Keccak-256 of Random automations', () => {
  it('hashes 40 bytes as @noble/hashes does', () => {
    const message = new Uint8Array(40);
    for (let i = 0; i < 500; i++) {
      for (let j = 0; j < 40; j++) message[j] = (i * 131 + j * 17 + (i >> 2) * j) & 0xff;
      expect(Buffer.from(keccak256Of40(message.subarray(0, 32), message.subarray(32))).toString('hex')).toBe(Buffer.from(keccak_256(message)).toString('hex'));
    }
  });
});
