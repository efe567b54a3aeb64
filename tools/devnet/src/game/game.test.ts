import { decodeBoard, decodeRound, inferPayoutRule, settleReturns, settleRound, slotHashRng, winningSquare } from '@gridlab/chain';
import { Game, drawTopMiner, eraStarts, reverseBits64 } from './game';
import { GameStateVersionError } from './game-state';
import { MinerModel } from './miner-model';
import { Prng } from './prng';

const config = { roundSlots: 10, intermissionSlots: 3, voidedRoundRate: 0, seed: 5, eras: eraStarts('mixed', 1, 0) };

describe('Prng', () => {
  it('repeats for a seed and differs across seeds', () => {
    const a = new Prng(1);
    const b = new Prng(1);
    const c = new Prng(2);
    const xs = Array.from({ length: 5 }, () => a.nextU32());
    expect(Array.from({ length: 5 }, () => b.nextU32())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.nextU32())).not.toEqual(xs);
  });
});

describe('MinerModel', () => {
  it('produces several hundred deploys around ~15 SOL a round, with occasional whales', () => {
    const model = new MinerModel(new Prng(9));
    const totals: number[] = [];
    for (let i = 0; i < 400; i++) {
      const deploys = model.nextRound(150);
      expect(deploys.length).toBeGreaterThanOrEqual(200);
      expect(deploys.every((d) => d.slotOffset >= 0 && d.slotOffset < 150)).toBe(true);
      totals.push(deploys.reduce((a, d) => a + d.lamportsPerSquare * d.squares.length, 0) / 1e9);
    }
    const sorted = [...totals].sort((a, b) => a - b);
    const median = sorted[200]!;
    expect(median).toBeGreaterThan(10);
    expect(median).toBeLessThan(22);
    expect(sorted[399]!).toBeGreaterThan(5 * median);
  });
});

describe('Game', () => {
  it('waits for a first deploy, runs the round, then resets after the intermission', () => {
    const game = new Game(config, 1, 100);
    expect(decodeBoard(game.boardBytes()).endSlot).toBeNull();
    let slot = 100;
    let settled = null;
    let started: number | null = null;
    while (settled === null && slot < 200) {
      slot++;
      const result = game.tick(slot, new Date(0));
      for (const w of result.writes) {
        if (w.kind === 'board' && started === null) started = decodeBoard(w.data).endSlot;
      }
      settled = result.settled;
    }
    expect(started).not.toBeNull();
    expect(slot).toBe(started! + config.intermissionSlots);
    expect(settled!.id).toBe(1);
    expect(game.currentRoundId).toBe(2);
    const board = decodeBoard(game.boardBytes());
    expect(board).toMatchObject({ roundId: 2, startSlot: slot, endSlot: null });
  });

  it('settles with the winning square of its slot hash and the v3 settlement totals', () => {
    const game = new Game({ ...config, eras: eraStarts('v3', 1, 0) }, 1, 0);
    const history = game.playHistory(50, () => new Date(0));
    for (const { data, round } of history) {
      const account = decodeRound(data);
      expect(round.winningSquare).toBe(winningSquare(account.slotHash));
      const totals = settleRound(account.deployed, round.winningSquare);
      expect(round.totalWinnings).toBe(totals.totalWinnings);
      expect(round.totalVaulted).toBe(totals.totalVaulted);
      expect(round.totalDeployed).toBe(account.deployed.reduce((a, b) => a + b, 0));
      expect(round.totalMiners).toBeGreaterThan(50);
    }
    expect(history.map((h) => h.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(game.currentRoundId).toBe(51);
  });

  it('voids rounds with an all-0xFF slot hash and refunds them', () => {
    const game = new Game({ ...config, voidedRoundRate: 1, eras: eraStarts('v3', 1, 0) }, 1, 0);
    const round = game.playHistory(1, () => new Date(0))[0]!.round;
    expect(round.winningSquare).toBeNull();
    expect(round.slotHash).toBe('ff'.repeat(32));
    expect(round.totalWinnings).toBe(0);
  });

  it('is the same game for the same seed', () => {
    const a = new Game(config, 1, 0).playHistory(5, () => new Date(0));
    const b = new Game(config, 1, 0).playHistory(5, () => new Date(0));
    expect(a.map((x) => x.round)).toEqual(b.map((x) => x.round));
  });

  it('voids a 952-byte round by zeroing its deployed and recording the refund', () => {
    const game = new Game({ ...config, voidedRoundRate: 1, eras: eraStarts('returns', 1, 0) }, 1, 0);
    const { data, round } = game.playHistory(1, () => new Date(0))[0]!;
    const account = decodeRound(data);
    expect(account.layout).toBe(952);
    expect(account.deployed.every((d) => d === 0)).toBe(true);
    expect(round.winningSquare).toBeNull();
    expect(round.totalWinnings).toBeGreaterThan(0);
    expect(round.totalDeployed).toBe(round.totalWinnings);
  });

  it('plays the eras in turn over a mixed history: 568-byte parimutuel, 952-byte parimutuel, 952-byte returns', () => {
    const game = new Game({ ...config, eras: eraStarts('mixed', 1, 90) }, 1, 0);
    const history = game.playHistory(90, () => new Date(0));
    let previous: 'parimutuel' | 'returns' | null = null;
    for (const { id, data, round } of history) {
      const account = decodeRound(data);
      const era = id <= 30 ? 'v3' : id <= 60 ? 'parimutuel-952' : 'returns';
      expect(account.layout).toBe(era === 'v3' ? 568 : 952);
      expect(round.payoutRule).toBe(era === 'returns' ? 'returns' : 'parimutuel');
      // Every round's own totals tell its rule.
      const inferred = inferPayoutRule(account, previous);
      expect(inferred).toMatchObject({ ok: true, rule: round.payoutRule });
      previous = round.payoutRule;
      if (round.winningSquare === null) continue;
      const totals = round.payoutRule === 'returns' ? settleReturns(account.deployed, round.winningSquare) : settleRound(account.deployed, round.winningSquare);
      expect([round.totalWinnings, round.totalVaulted]).toEqual([totals.totalWinnings, totals.totalVaulted]);
      if (era === 'v3') {
        expect(round.oreReward).toBeNull();
        expect(round.productionCost).toBeNull();
      } else {
        expect(round.productionCost).toBeGreaterThan(0);
        expect(round.oreReward).toBe(account.deployed[round.winningSquare]! > 0 ? 100_000_000_000 : 0);
        expect(round.split).toBe(round.topMiner === 'SpLiT11111111111111111111111111111111111112');
      }
    }
    expect(history.filter((h) => h.round.split === true).length).toBeGreaterThan(5);
    expect(history.filter((h) => h.round.split === false).length).toBeGreaterThan(5);
    // The board's u64 @32 is the production cost once rounds are 952 bytes.
    expect(decodeBoard(game.boardBytes()).epochOrCost).toBe(history[89]!.round.productionCost);
  });

  it('draws the top miner as the program does: reverse_bits(rng) % deployed[w] over cumulative stakes in deploy order', () => {
    expect(reverseBits64(1n)).toBe(1n << 63n);
    expect(reverseBits64(0xf0n)).toBe(0x0f00_0000_0000_0000n);
    // Miners 7, 3, 9 deployed 100, 50, 250 in that order: samples 0..99 -> 7, 100..149 -> 3, 150..399 -> 9.
    const stakes = new Map([[7, 100], [3, 50], [9, 250]]);
    const rngFor = (sample: bigint) => reverseBits64(sample); // reverse_bits is its own inverse
    expect(drawTopMiner(stakes, rngFor(0n), 400)).toBe(7);
    expect(drawTopMiner(stakes, rngFor(99n), 400)).toBe(7);
    expect(drawTopMiner(stakes, rngFor(100n), 400)).toBe(3);
    expect(drawTopMiner(stakes, rngFor(149n), 400)).toBe(3);
    expect(drawTopMiner(stakes, rngFor(150n), 400)).toBe(9);
    expect(drawTopMiner(stakes, rngFor(400n + 120n), 400)).toBe(3);
  });
});

describe('Game state', () => {
  it('a game restored from its saved state (through JSON) continues exactly as the original', () => {
    const original = new Game({ ...config, voidedRoundRate: 0.1 }, 1, 100);
    let slot = 100;
    // Stop mid-round, with deploys applied and a spare normal possibly cached.
    while (original.currentRoundId < 4 || decodeRound(original.roundBytes()).totalDeployed === 0) original.tick(++slot, new Date(0));
    const state = JSON.parse(JSON.stringify(original.saveState())) as unknown;
    const restored = Game.restore({ ...config, voidedRoundRate: 0.1 }, state);
    expect(restored.currentRoundId).toBe(original.currentRoundId);
    expect(Buffer.from(restored.roundBytes())).toEqual(Buffer.from(original.roundBytes()));
    expect(Buffer.from(restored.boardBytes())).toEqual(Buffer.from(original.boardBytes()));
    for (let i = 0; i < 200; i++) {
      slot++;
      const a = original.tick(slot, new Date(0));
      const b = restored.tick(slot, new Date(0));
      expect(b.writes.map((w) => Buffer.from(w.data))).toEqual(a.writes.map((w) => Buffer.from(w.data)));
      expect(b.settled).toEqual(a.settled);
    }
    expect(restored.currentRoundId).toBeGreaterThan(8);
  });

  it('refuses a state of another version', () => {
    const state = { ...new Game(config, 1, 100).saveState(), version: 99 };
    expect(() => Game.restore(config, state)).toThrow(GameStateVersionError);
    expect(() => Game.restore(config, state)).toThrow(/version 99/);
  });
});
