import { createHash } from 'node:crypto';
import {
  type BoardAccount,
  decodeRound,
  encodeBoard,
  encodeRound,
  layout,
  settleReturns,
  settleRound,
  slotHashRng,
  splitAddressBytes,
  toSettledRound,
  winningSquare,
} from '@gridlab/chain';
import type { PayoutRule, Round } from '@gridlab/contracts';
import { captureGameState, restoreGameState, type GameState } from './game-state';
import { MinerModel, type Deploy } from './miner-model';
import { Prng } from './prng';

const SQUARES = 25;
/** Round accounts may be closed one day of slots after the round ends. */
const EXPIRY_SLOTS = 216_000;
/** 1 ORE (11 decimals) to the top miner of the winning square. */
const TOP_MINER_REWARD = layout.ORE_BASE_UNITS;
/** The motherlode grows 0.2 ORE a round and pays out with probability 1/625 (v3), 1/500 since. */
const MOTHERLODE_STEP = 20_000_000_000;
const MOTHERLODE_ODDS_V3 = 625;
const MOTHERLODE_ODDS = 500;
/** The board's production cost is an EMA over 20 rounds. */
const COST_EMA_ROUNDS = 20;
/** The cost the EMA starts from: 0.3 SOL per ORE. */
const INITIAL_PRODUCTION_COST = 300_000_000;
/** A 952-byte round's ORE reward is split pro rata on the winning square half the time. */
const SPLIT_ODDS = 0.5;

/**
 * The program's eras, by round id: rounds before `current` are v3 (568 bytes,
 * parimutuel); from `current` on they are 952 bytes, paid parimutuel until `returns`
 * and by the `returns` rule from then on (SPEC 3).
 */
export interface EraStarts {
  readonly current: number;
  readonly returns: number;
}

/** Which eras a devnet plays: all three in turn over its history, or one. */
export type EraSetting = 'mixed' | 'v3' | 'parimutuel-952' | 'returns';

/**
 * Era boundaries for a devnet whose history holds rounds `firstId .. firstId + history - 1`:
 * `mixed` splits the history in thirds (v3, 952-byte parimutuel, returns) and plays live
 * rounds under `returns`, the program as it runs today.
 */
export function eraStarts(setting: EraSetting, firstId: number, history: number): EraStarts {
  const never = Number.MAX_SAFE_INTEGER;
  switch (setting) {
    case 'v3':
      return { current: never, returns: never };
    case 'parimutuel-952':
      return { current: 0, returns: never };
    case 'returns':
      return { current: 0, returns: 0 };
    case 'mixed':
      return { current: firstId + Math.floor(history / 3), returns: firstId + Math.floor((2 * history) / 3) };
  }
}

export interface GameConfig {
  readonly roundSlots: number;
  readonly intermissionSlots: number;
  readonly voidedRoundRate: number;
  readonly seed: number;
  readonly eras: EraStarts;
}

/** An account the game wrote this slot. */
export type GameWrite =
  | { readonly kind: 'board'; readonly data: Uint8Array }
  | { readonly kind: 'round'; readonly roundId: number; readonly data: Uint8Array };

export interface TickResult {
  readonly writes: readonly GameWrite[];
  /** The round that settled this slot, if any. */
  readonly settled: Round | null;
}

export interface OpenRound {
  readonly id: number;
  readonly deployed: number[];
  readonly minersBySquare: Set<number>[];
  readonly stakeBySquare: Map<number, number>[];
  readonly miners: Set<number>;
  plan: Deploy[];
  next: number;
}

/**
 * The ORE v3 round lifecycle, pure: the board waits for a first deploy, the round runs
 * `roundSlots` slots of deploys, then `intermissionSlots`, then the reset writes the
 * slot hash and settlement totals into the round and moves the board on. `tick` is
 * called once per slot and returns the account bytes that changed.
 */
export class Game {
  private readonly random: Prng;
  private readonly model: MinerModel;
  private board: BoardAccount;
  private round: OpenRound;
  /** Slot at which the waiting round gets its first deploy. */
  private firstDeploySlot: number;
  private motherlodePool = 0;
  /** Lamports per whole ORE, written into the board once rounds are 952 bytes. */
  private productionCost = INITIAL_PRODUCTION_COST;
  private readonly rentPayer: Uint8Array;

  constructor(
    private readonly config: GameConfig,
    firstRoundId: number,
    startSlot: number,
  ) {
    this.random = new Prng(config.seed);
    this.model = new MinerModel(this.random);
    this.rentPayer = minerKey(-1);
    this.board = { roundId: firstRoundId, startSlot, endSlot: null, epochOrCost: 0 };
    this.round = this.openRound(firstRoundId);
    this.firstDeploySlot = startSlot + 1 + this.random.int(3);
  }

  /** The whole game state, versioned and JSON-safe, for the devnet's ledger file (game-state.ts). */
  saveState(): GameState {
    const { board, round, firstDeploySlot, motherlodePool, productionCost } = this;
    return captureGameState(this.random, this.model, this.config.eras, { board, round, firstDeploySlot, motherlodePool, productionCost });
  }

  /**
   * The game continuing from `saveState()`, in the eras it was started with (a chain does
   * not change its history when a setting changes); throws GameStateVersionError for
   * another version.
   */
  static restore(config: GameConfig, state: unknown): Game {
    const { eras, apply } = restoreGameState(state);
    const game = new Game({ ...config, eras }, 1, 0);
    Object.assign(game, apply(game.random, game.model));
    return game;
  }

  get currentRoundId(): number {
    return this.board.roundId;
  }

  boardBytes(): Uint8Array {
    return encodeBoard(this.boardAccount());
  }

  /** The board as written: its u64 @32 is the epoch (0) for v3 rounds, the production cost after. */
  private boardAccount(): BoardAccount {
    return { ...this.board, epochOrCost: this.layoutOf(this.board.roundId) === layout.ROUND_LEN_CURRENT ? this.productionCost : 0 };
  }

  private layoutOf(roundId: number): typeof layout.ROUND_LEN_V3 | typeof layout.ROUND_LEN_CURRENT {
    return roundId < this.config.eras.current ? layout.ROUND_LEN_V3 : layout.ROUND_LEN_CURRENT;
  }

  private ruleOf(roundId: number): PayoutRule {
    return roundId < this.config.eras.returns ? 'parimutuel' : 'returns';
  }

  /** The stored form of a settled round account, as the indexer records it on settlement. */
  private record(id: number, data: Uint8Array, settledAt: Date): Round {
    const current = this.layoutOf(id) === layout.ROUND_LEN_CURRENT;
    return toSettledRound(decodeRound(data), settledAt, { payoutRule: this.ruleOf(id), productionCost: current ? this.productionCost : null });
  }

  roundBytes(): Uint8Array {
    return this.encodeOpen(this.round);
  }

  /**
   * Plays `count` whole rounds at once (history before the live game, starting at the
   * current round id): each is settled as it would be live. Returns their accounts and
   * wire records; the live game then continues with the next id.
   */
  playHistory(count: number, settledAt: (index: number) => Date): { id: number; data: Uint8Array; round: Round }[] {
    const out: { id: number; data: Uint8Array; round: Round }[] = [];
    for (let i = 0; i < count; i++) {
      const open = this.round;
      for (const d of open.plan) this.apply(open, d);
      const data = this.settle(open);
      out.push({ id: open.id, data, round: this.record(open.id, data, settledAt(i)) });
      this.board = { ...this.board, roundId: open.id + 1 };
      this.round = this.openRound(open.id + 1);
    }
    return out;
  }

  /** Advances to `slot`; `now` stamps a settlement. */
  tick(slot: number, now: Date): TickResult {
    const writes: GameWrite[] = [];
    const open = this.round;
    const endSlot = this.board.endSlot;
    if (endSlot === null) {
      if (slot < this.firstDeploySlot) return { writes, settled: null };
      this.board = { ...this.board, startSlot: slot, endSlot: slot + this.config.roundSlots };
      writes.push({ kind: 'board', data: this.boardBytes() });
    }
    const end = this.board.endSlot!;
    const start = end - this.config.roundSlots;
    if (slot < end) {
      let changed = false;
      while (open.next < open.plan.length && start + open.plan[open.next]!.slotOffset <= slot) {
        this.apply(open, open.plan[open.next++]!);
        changed = true;
      }
      if (changed) writes.push({ kind: 'round', roundId: open.id, data: this.encodeOpen(open) });
      return { writes, settled: null };
    }
    if (slot < end + this.config.intermissionSlots) return { writes, settled: null };
    const data = this.settle(open);
    writes.push({ kind: 'round', roundId: open.id, data });
    this.board = { roundId: open.id + 1, startSlot: slot, endSlot: null, epochOrCost: 0 };
    this.round = this.openRound(open.id + 1);
    this.firstDeploySlot = slot + 1 + this.random.int(3);
    writes.push({ kind: 'board', data: this.boardBytes() });
    writes.push({ kind: 'round', roundId: this.round.id, data: this.encodeOpen(this.round) });
    return { writes, settled: this.record(open.id, data, now) };
  }

  private openRound(id: number): OpenRound {
    return {
      id,
      deployed: new Array<number>(SQUARES).fill(0),
      minersBySquare: Array.from({ length: SQUARES }, () => new Set<number>()),
      stakeBySquare: Array.from({ length: SQUARES }, () => new Map<number, number>()),
      miners: new Set(),
      plan: this.model.nextRound(this.config.roundSlots),
      next: 0,
    };
  }

  private apply(open: OpenRound, d: Deploy): void {
    open.miners.add(d.miner);
    for (const s of d.squares) {
      open.deployed[s]! += d.lamportsPerSquare;
      open.minersBySquare[s]!.add(d.miner);
      const stakes = open.stakeBySquare[s]!;
      stakes.set(d.miner, (stakes.get(d.miner) ?? 0) + d.lamportsPerSquare);
    }
  }

  private encodeOpen(open: OpenRound): Uint8Array {
    const end = this.board.roundId === open.id ? this.board.endSlot : null;
    return encodeRound(
      {
        id: open.id,
        deployed: open.deployed,
        count: open.minersBySquare.map((m) => m.size),
        expiresAt: end === null ? null : end + EXPIRY_SLOTS,
        rentPayer: this.rentPayer,
        totalDeployed: open.deployed.reduce((a, b) => a + b, 0),
        totalMiners: open.miners.size,
      },
      this.layoutOf(open.id),
    );
  }

  /** The reset: a slot hash (or none: voided), the settlement totals, the top miner. */
  private settle(open: OpenRound): Uint8Array {
    const voided = this.random.next() < this.config.voidedRoundRate;
    const slotHash = voided ? new Uint8Array(32).fill(0xff) : this.random.bytes(32);
    const winner = winningSquare(slotHash);
    return this.layoutOf(open.id) === layout.ROUND_LEN_CURRENT ? this.settleCurrent(open, slotHash, winner) : this.settleV3(open, slotHash, winner);
  }

  private settleV3(open: OpenRound, slotHash: Uint8Array, winner: number | null): Uint8Array {
    const totals = settleRound(open.deployed, winner);
    let topMiner: number | null = null;
    if (winner !== null) {
      let best = 0;
      for (const [miner, stake] of open.stakeBySquare[winner]!) {
        if (stake > best) [best, topMiner] = [stake, miner];
      }
    }
    const motherlode = winner === null ? 0 : this.drawMotherlode(MOTHERLODE_ODDS_V3);
    const end = this.board.endSlot;
    return encodeRound({
      id: open.id,
      deployed: open.deployed,
      count: open.minersBySquare.map((m) => m.size),
      slotHash,
      expiresAt: end === null ? null : end + EXPIRY_SLOTS,
      motherlode,
      rentPayer: this.rentPayer,
      topMiner: topMiner === null ? new Uint8Array(32) : minerKey(topMiner),
      topMinerReward: topMiner === null ? 0 : TOP_MINER_REWARD,
      totalDeployed: totals.totalDeployed,
      totalMiners: open.miners.size,
      totalVaulted: totals.totalVaulted,
      totalWinnings: totals.totalWinnings,
    });
  }

  /**
   * A 952-byte round: settled by the era's rule; 1 ORE reward split pro rata half the
   * time, else to one miner of the winning square drawn as the program draws
   * (`reverse_bits(rng) % deployed[w]` walked through the miners in deploy order); the
   * motherlode 1 round in 500; then the board's production-cost EMA moves. A voided
   * round has its deployed zeroed and the refund written as `total_winnings`.
   */
  private settleCurrent(open: OpenRound, slotHash: Uint8Array, winner: number | null): Uint8Array {
    const end = this.board.endSlot;
    const common = {
      id: open.id,
      count: open.minersBySquare.map((m) => m.size),
      slotHash,
      expiresAt: end === null ? null : end + EXPIRY_SLOTS,
      rentPayer: this.rentPayer,
      totalMiners: open.miners.size,
    };
    if (winner === null) {
      const refund = open.deployed.reduce((a, b) => a + b, 0);
      return encodeRound({ ...common, totalWinnings: refund }, layout.ROUND_LEN_CURRENT);
    }
    const totals = this.ruleOf(open.id) === 'returns' ? settleReturns(open.deployed, winner) : settleRound(open.deployed, winner);
    const onWinner = open.deployed[winner]!;
    const rewards = new Array<number>(SQUARES).fill(0);
    let topMiner: Uint8Array = new Uint8Array(32);
    let motherlode = 0;
    if (onWinner > 0) {
      rewards[winner] = TOP_MINER_REWARD;
      if (this.random.next() < SPLIT_ODDS) topMiner = splitAddressBytes();
      else topMiner = minerKey(drawTopMiner(open.stakeBySquare[winner]!, slotHashRng(slotHash), onWinner));
      motherlode = this.drawMotherlode(MOTHERLODE_ODDS);
    }
    // SOL the miners lost to produce this round's ORE, per whole ORE.
    const minted = rewards[winner]! + motherlode;
    if (minted > 0) {
      const cost = Math.floor(((totals.adminFee + totals.totalVaulted) * layout.ORE_BASE_UNITS) / minted);
      this.productionCost = Math.floor(this.productionCost + ((cost - this.productionCost) * 2) / (COST_EMA_ROUNDS + 1));
    }
    return encodeRound(
      {
        ...common,
        deployed: open.deployed,
        motherlode,
        rewards,
        topMiner,
        totalVaulted: totals.totalVaulted,
        totalWinnings: totals.totalWinnings,
      },
      layout.ROUND_LEN_CURRENT,
    );
  }

  /** Adds this round's step to the motherlode and pays it out with probability 1/odds. */
  private drawMotherlode(odds: number): number {
    this.motherlodePool += MOTHERLODE_STEP;
    if (this.random.int(odds) !== 0) return 0;
    const paid = this.motherlodePool;
    this.motherlodePool = 0;
    return paid;
  }
}

/** Reverses the 64 bits of `value`. */
export function reverseBits64(value: bigint): bigint {
  let out = 0n;
  let v = value;
  for (let i = 0; i < 64; i++) {
    out = (out << 1n) | (v & 1n);
    v >>= 1n;
  }
  return out;
}

/**
 * The top miner of the winning square as the program draws it: a sample
 * `reverse_bits(rng) % total` walked through the miners' cumulative stakes in deploy order.
 */
export function drawTopMiner(stakes: ReadonlyMap<number, number>, rng: bigint, total: number): number {
  const sample = Number(reverseBits64(rng) % BigInt(total));
  let cumulative = 0;
  let last = -1;
  for (const [miner, stake] of stakes) {
    cumulative += stake;
    last = miner;
    if (sample < cumulative) return miner;
  }
  return last;
}

/** A stable 32-byte "wallet" for miner n of the pool. */
function minerKey(n: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`gridlab-devnet-miner-${n}`).digest());
}
