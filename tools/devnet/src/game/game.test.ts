import {
  decodeBoard,
  decodeRound,
  inferPayoutRule,
  isSplitByRng,
  isSplitSquare,
  settleReturns,
  settleRound,
  slotHashRng,
  winningSquare,
} from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { reverseBits as reverseBits64 } from '../program/round-rules';
import { type DeployEntry, type Deploys, type DerivedRound, deployAt, drawTopMiner } from './derive-round';
import { eraStarts, eventEraOf } from './eras';
import { Game, type GameConfig } from './game';
import { GameStateVersionError, restoreGameState } from './game-state';
import { initialWeights, planRound, type Plan } from './miner-model';
import { populationOf } from './population';
import { Prng } from './prng';

const config: GameConfig = { roundSlots: 10, intermissionSlots: 3, voidedRoundRate: 0, seed: 5, eras: eraStarts('mixed', 1, 0) };
const SPLIT = 'SpLiT11111111111111111111111111111111111112';

function history(cfg: GameConfig, count: number): { game: Game; rounds: { round: DerivedRound; record: Round }[] } {
  const rounds: { round: DerivedRound; record: Round }[] = [];
  const game = new Game(cfg, count, 1_000_000, (s) => rounds.push(s));
  return { game, rounds };
}

const planned = (plan: Plan) =>
  Array.from({ length: plan.length }, (_, i) => ({ slotOffset: plan.slotOffset[i]!, miner: plan.miner[i]!, mask: plan.mask[i]!, lamportsPerSquare: plan.amount[i]! }));
const landed = (deploys: Deploys): DeployEntry[] => Array.from({ length: deploys.length }, (_, i) => deployAt(deploys, i));
const columns = (entries: readonly DeployEntry[]): Deploys => ({
  length: entries.length,
  slot: Float64Array.from(entries, (e) => e.slot),
  miner: Uint16Array.from(entries, (e) => e.miner),
  requested: Int32Array.from(entries, (e) => e.requested),
  deployed: Int32Array.from(entries, (e) => e.deployed),
  amount: Float64Array.from(entries, (e) => e.amount),
  roundLamportsBefore: Float64Array.from(entries, (e) => e.roundLamportsBefore),
  flags: Uint8Array.from(entries, (e) => (e.automated ? 1 : 0) | (e.closed ? 2 : 0) | (e.silent ? 4 : 0) | (e.strategy << 3)),
  argAmount: Float64Array.from(entries, (e) => e.argAmount),
  automationBefore: Float64Array.from(entries, (e) => e.automationBefore),
  executorFee: Float64Array.from(entries, (e) => e.executorFee),
});
const bits = (mask: number): number[] => Array.from({ length: 25 }, (_, s) => s).filter((s) => mask & (1 << s));

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

describe('miner model', () => {
  it('plans several hundred deploys around ~15 SOL a round, with occasional whales', () => {
    const weights = initialWeights(new Prng(9));
    const random = new Prng(10);
    const population = populationOf(9, 400, 0);
    const totals: number[] = [];
    for (let i = 0; i < 400; i++) {
      const deploys = planned(planRound(population, weights, random, 150));
      // A quiet round (the round's swing at its lowest, half the usual activity) still has well over a hundred.
      expect(deploys.length).toBeGreaterThanOrEqual(150);
      expect(deploys.every((d, j) => d.slotOffset >= 0 && d.slotOffset < 150 && (j === 0 || deploys[j - 1]!.slotOffset <= d.slotOffset))).toBe(true);
      totals.push(deploys.reduce((a, d) => a + d.lamportsPerSquare * bits(d.mask).length, 0) / 1e9);
    }
    const sorted = [...totals].sort((a, b) => a - b);
    const median = sorted[200]!;
    expect(median).toBeGreaterThan(10);
    expect(median).toBeLessThan(24);
    expect(sorted[399]!).toBeGreaterThan(5 * median);
  });

  it('has miners deploy again later in a round on squares they already hold', () => {
    const deploys = planned(planRound(populationOf(3, 400, 0), initialWeights(new Prng(3)), new Prng(4), 150));
    const seen = new Map<number, number>();
    let overlapping = 0;
    for (const d of deploys) {
      const held = seen.get(d.miner) ?? 0;
      if ((held & d.mask) !== 0) overlapping++;
      seen.set(d.miner, held | d.mask);
    }
    expect(overlapping).toBeGreaterThan(3);
  });
});

describe('Game', () => {
  it('waits for a first deploy, runs the round, then resets after the intermission', () => {
    const game = new Game(config, 0, 100);
    expect(decodeBoard(game.boardBytes())).toMatchObject({ roundId: 1, endSlot: null });
    let slot = 100;
    let settled = null;
    let started: number | null = null;
    while (settled === null && slot < 200) {
      slot++;
      const result = game.tick(slot);
      for (const w of result.writes) {
        if (w.kind === 'board' && started === null) started = decodeBoard(w.data).endSlot;
      }
      settled = result.settled;
    }
    expect(started).not.toBeNull();
    expect(slot).toBe(started! + config.intermissionSlots);
    expect(settled?.record.id).toBe(1);
    expect(game.currentRoundId).toBe(2);
    expect(decodeBoard(game.boardBytes())).toMatchObject({ roundId: 2, startSlot: slot + 1, endSlot: null });
  });

  it('applies only a miner’s first deploy on a square: deployed sums them, count and total_miners count distinct miners', () => {
    const { rounds } = history({ ...config, eras: eraStarts('returns', 1, 0) }, 20);
    let skipped = 0;
    for (const { round, record } of rounds) {
      const held = new Map<number, number>();
      const deployed = new Array<number>(25).fill(0);
      const miners = new Array<Set<number>>(25).fill(new Set()).map(() => new Set<number>());
      for (const d of landed(round.deploys)) {
        const before = held.get(d.miner) ?? 0;
        expect(d.deployed).toBe(d.requested & ~before);
        if (d.deployed !== d.requested) skipped++;
        held.set(d.miner, before | d.requested);
        for (const s of bits(d.deployed)) {
          deployed[s]! += d.amount;
          miners[s]!.add(d.miner);
        }
      }
      if (record.winningSquare !== null) expect(record.deployed).toEqual(deployed);
      expect(record.count).toEqual(miners.map((m) => m.size));
      expect(record.totalMiners).toBe(held.size);
    }
    expect(skipped).toBeGreaterThan(0);
  });

  it('lays history out in slots as live rounds are, ending at the genesis slot', () => {
    const { rounds } = history(config, 30);
    rounds.forEach(({ round }, i) => {
      expect(round.endSlot - round.startSlot).toBe(config.roundSlots);
      expect(round.resetSlot - round.endSlot).toBe(config.intermissionSlots);
      if (i > 0) expect(round.startSlot - rounds[i - 1]!.round.resetSlot).toBeGreaterThanOrEqual(1);
      if (i > 0) expect(round.startSlot - rounds[i - 1]!.round.resetSlot).toBeLessThanOrEqual(3);
    });
    expect(rounds[29]!.round.resetSlot).toBe(1_000_000);
  });

  it('settles with the winning square of its slot hash and the v3 settlement totals', () => {
    const { game, rounds } = history({ ...config, eras: eraStarts('v3', 1, 0) }, 50);
    for (const { round, record } of rounds) {
      const account = decodeRound(round.account);
      expect(account.layout).toBe(568);
      expect(record.winningSquare).toBe(winningSquare(account.slotHash));
      const totals = settleRound(account.deployed, record.winningSquare);
      expect(record.totalWinnings).toBe(totals.totalWinnings);
      expect(record.totalVaulted).toBe(totals.totalVaulted);
      expect(record.totalDeployed).toBe(account.deployed.reduce((a, b) => a + b, 0));
      expect(record.totalMiners).toBeGreaterThan(50);
      expect(account.expiresAt).toBe(round.endSlot + 216_000);
    }
    expect(rounds.map((h) => h.record.id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(game.currentRoundId).toBe(51);
  });

  it('voids rounds with an all-0xFF slot hash and refunds them', () => {
    const v3 = history({ ...config, voidedRoundRate: 1, eras: eraStarts('v3', 1, 0) }, 1).rounds[0]!;
    expect(v3.record.winningSquare).toBeNull();
    expect(v3.record.slotHash).toBe('ff'.repeat(32));
    expect(v3.record.totalWinnings).toBe(0);
    expect(v3.round.reset).toMatchObject({ winningSquare: null, miners: 0, rng: 0n, deployedWinningSquare: 0, totalMinted: 0, totalDeployed: 0 });
    // The v3 reset zeroes the total_deployed field (@536) and keeps deployed (reset.rs at f2c552c); the indexer reads what was deployed.
    expect(Buffer.from(v3.round.account).readBigUInt64LE(536)).toBe(0n);
    const v3Account = decodeRound(v3.round.account);
    expect(v3Account.totalDeployed).toBe(v3Account.deployed.reduce((a, b) => a + b, 0));
    expect(v3Account.totalDeployed).toBe(v3.record.totalDeployed);
    expect(v3.record.totalDeployed).toBeGreaterThan(0);
    const current = history({ ...config, voidedRoundRate: 1, eras: eraStarts('returns', 1, 0) }, 1).rounds[0]!;
    const account = decodeRound(current.round.account);
    expect(account.layout).toBe(952);
    expect(account.deployed.every((d) => d === 0)).toBe(true);
    expect(current.record.totalWinnings).toBeGreaterThan(0);
    expect(current.record.totalDeployed).toBe(current.record.totalWinnings);
    // The event logs total_deployed after the refund zeroed the stakes, and the refund as total_winnings (reset.rs at 999e16e).
    expect(current.round.reset.totalDeployed).toBe(0);
    expect(current.round.reset.totalWinnings).toBe(landed(current.round.deploys).reduce((a, d) => a + d.amount * bits(d.deployed).length, 0));
  });

  it('is the same game for the same seed, and derives any round again identically', () => {
    const a = history(config, 60);
    const b = history(config, 60);
    expect(a.rounds.map((x) => x.record)).toEqual(b.rounds.map((x) => x.record));
    // Evicted from the cache long ago: derived again from its checkpoint.
    for (const id of [1, 31, 32, 33, 45]) {
      const again = a.game.chronicle.derive(id);
      const first = a.rounds[id - 1]!.round;
      expect(Buffer.from(again.account)).toEqual(Buffer.from(first.account));
      expect(again.deploys).toEqual(first.deploys);
      expect(again.reset).toEqual(first.reset);
    }
  });

  it('plays the eras in turn over a mixed history, with the split rule and event layouts of each', () => {
    const { game, rounds } = history({ ...config, eras: eraStarts('mixed', 1, 96) }, 96);
    let previous: 'parimutuel' | 'returns' | null = null;
    const eras = eraStarts('mixed', 1, 96);
    expect(eras).toMatchObject({ current: 33, returns: 65, deployEvents: 9, deployedMask: 17, resetEvent144: 25, totalMiners: 49 });
    for (const { round, record } of rounds) {
      const id = record.id;
      const account = decodeRound(round.account);
      const era = id <= 32 ? 'v3' : id <= 64 ? 'parimutuel-952' : 'returns';
      expect(account.layout).toBe(era === 'v3' ? 568 : 952);
      expect(record.payoutRule).toBe(era === 'returns' ? 'returns' : 'parimutuel');
      expect(round.events).toEqual(eventEraOf(eras, id));
      expect(round.events.resetLength).toBe(id < 25 ? 128 : 144);
      // Every round's own totals tell its rule.
      expect(inferPayoutRule(account, previous)).toMatchObject({ ok: true, rule: record.payoutRule });
      previous = record.payoutRule;
      const w = record.winningSquare;
      if (w === null) continue;
      const totals = record.payoutRule === 'returns' ? settleReturns(account.deployed, w) : settleRound(account.deployed, w);
      expect([record.totalWinnings, record.totalVaulted]).toEqual([totals.totalWinnings, totals.totalVaulted]);
      expect(round.reset.miners).toBe(
        record.payoutRule === 'parimutuel' && account.deployed[w] === 0 ? 0 : id < 49 ? account.count[w] : record.totalMiners,
      );
      if (era === 'v3') {
        expect(record.oreReward).toBeNull();
        expect(Buffer.from(round.reset.topMiner)).toEqual(Buffer.alloc(32));
        continue;
      }
      expect(record.productionCost).toBeGreaterThan(0);
      expect(record.oreReward).toBe(account.deployed[w]! > 0 ? 100_000_000_000 : 0);
      if (account.deployed[w]! === 0) continue;
      const split = era === 'returns' ? isSplitSquare(id, w) : isSplitByRng(slotHashRng(account.slotHash));
      expect(record.split).toBe(split);
      expect(record.topMiner === SPLIT).toBe(split);
    }
    expect(rounds.filter((h) => h.record.split === true).length).toBeGreaterThan(5);
    expect(rounds.filter((h) => h.record.split === false).length).toBeGreaterThan(5);
    // The board's u64 @32 is the production cost once rounds are 952 bytes.
    expect(decodeBoard(game.boardBytes()).epochOrCost).toBe(rounds[95]!.record.productionCost);
  });

  it('keeps the motherlode pool in the treasury: 0.2 ORE a paying round, paid out whole when hit', () => {
    const { game, rounds } = history({ ...config, eras: eraStarts('returns', 1, 0) }, 40);
    let pool = 0;
    for (const { round } of rounds) {
      if (round.reset.totalMinted > 0) {
        if (round.reset.motherlode > 0) {
          expect(round.reset.motherlode).toBe(pool);
          pool = 0;
        }
        pool += 20_000_000_000;
      }
      expect(round.poolAfter).toBe(pool);
    }
    const treasury = game.treasuryBytes();
    expect(treasury.length).toBe(48);
    expect(treasury[0]).toBe(104);
    expect(Buffer.from(treasury).readBigUInt64LE(8)).toBe(BigInt(pool));
  });

  it('draws the top miner as the program does: reverse_bits(rng) % deployed[w] over cumulative stakes in deploy order', () => {
    expect(reverseBits64(1n)).toBe(1n << 63n);
    expect(reverseBits64(0xf0n)).toBe(0x0f00_0000_0000_0000n);
    expect(reverseBits64(reverseBits64(0x0123_4567_89ab_cdefn))).toBe(0x0123_4567_89ab_cdefn);
    // Miners 7, 3, 9 deployed 100, 50, 250 on square 4 in that order (and 5 elsewhere): samples 0..99 -> 7, 100..149 -> 3, 150..399 -> 9.
    const entry = (miner: number, amount: number, deployed: number): DeployEntry => ({
      slot: 0,
      miner,
      requested: deployed,
      deployed,
      amount,
      roundLamportsBefore: 0,
      automated: false,
      argAmount: amount,
      strategy: 0,
      automationBefore: 0,
      executorFee: 0,
      closed: false,
      silent: false,
    });
    const entries = columns([entry(7, 100, 1 << 4), entry(5, 1000, 1 << 2), entry(3, 50, 1 << 4), entry(9, 250, (1 << 4) | 1)]);
    const rngFor = (sample: bigint) => reverseBits64(sample);
    expect(drawTopMiner(entries, 4, rngFor(0n), 400)).toBe(7);
    expect(drawTopMiner(entries, 4, rngFor(99n), 400)).toBe(7);
    expect(drawTopMiner(entries, 4, rngFor(100n), 400)).toBe(3);
    expect(drawTopMiner(entries, 4, rngFor(149n), 400)).toBe(3);
    expect(drawTopMiner(entries, 4, rngFor(150n), 400)).toBe(9);
    expect(drawTopMiner(entries, 4, rngFor(400n + 120n), 400)).toBe(3);
  });
});

describe('Game state', () => {
  it('keeps the settings the chain was started with, through JSON', () => {
    const game = new Game({ ...config, voidedRoundRate: 0.1 }, 7, 5000);
    const state = restoreGameState(JSON.parse(JSON.stringify(game.saveState())));
    expect(state).toEqual({ version: 6, config: { ...config, voidedRoundRate: 0.1 }, historyRounds: 7, genesisSlot: 5000 });
  });

  it('refuses a state of another version', () => {
    const state = { ...new Game(config, 0, 100).saveState(), version: 99 };
    expect(() => restoreGameState(state)).toThrow(GameStateVersionError);
    expect(() => restoreGameState(state)).toThrow(/version 99/);
  });
});
