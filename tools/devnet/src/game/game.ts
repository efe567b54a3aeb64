import { createHash } from 'node:crypto';
import {
  type BoardAccount,
  decodeRound,
  encodeBoard,
  encodeRound,
  settleRound,
  toSettledRound,
  winningSquare,
} from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { captureGameState, restoreGameState, type GameState } from './game-state';
import { MinerModel, type Deploy } from './miner-model';
import { Prng } from './prng';

const SQUARES = 25;
/** Round accounts may be closed one day of slots after the round ends. */
const EXPIRY_SLOTS = 216_000;
/** 1 ORE (11 decimals) to the top miner of the winning square. */
const TOP_MINER_REWARD = 100_000_000_000;
/** The motherlode grows 0.2 ORE a round and pays out with probability 1/625. */
const MOTHERLODE_STEP = 20_000_000_000;
const MOTHERLODE_ODDS = 625;

export interface GameConfig {
  readonly roundSlots: number;
  readonly intermissionSlots: number;
  readonly voidedRoundRate: number;
  readonly seed: number;
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
  private readonly rentPayer: Uint8Array;

  constructor(
    private readonly config: GameConfig,
    firstRoundId: number,
    startSlot: number,
  ) {
    this.random = new Prng(config.seed);
    this.model = new MinerModel(this.random);
    this.rentPayer = minerKey(-1);
    this.board = { roundId: firstRoundId, startSlot, endSlot: null, epochId: 0 };
    this.round = this.openRound(firstRoundId);
    this.firstDeploySlot = startSlot + 1 + this.random.int(3);
  }

  /** The whole game state, versioned and JSON-safe, for the devnet's ledger file (game-state.ts). */
  saveState(): GameState {
    const { board, round, firstDeploySlot, motherlodePool } = this;
    return captureGameState(this.random, this.model, { board, round, firstDeploySlot, motherlodePool });
  }

  /** The game continuing from `saveState()`; throws GameStateVersionError for another version. */
  static restore(config: GameConfig, state: unknown): Game {
    const game = new Game(config, 1, 0);
    Object.assign(game, restoreGameState(state, game.random, game.model));
    return game;
  }

  get currentRoundId(): number {
    return this.board.roundId;
  }

  boardBytes(): Uint8Array {
    return encodeBoard(this.board);
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
      out.push({ id: open.id, data, round: toSettledRound(decodeRound(data), settledAt(i)) });
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
      writes.push({ kind: 'board', data: encodeBoard(this.board) });
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
    this.board = { roundId: open.id + 1, startSlot: slot, endSlot: null, epochId: this.board.epochId };
    this.round = this.openRound(open.id + 1);
    this.firstDeploySlot = slot + 1 + this.random.int(3);
    writes.push({ kind: 'board', data: encodeBoard(this.board) });
    writes.push({ kind: 'round', roundId: this.round.id, data: this.encodeOpen(this.round) });
    return { writes, settled: toSettledRound(decodeRound(data), now) };
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
    return encodeRound({
      id: open.id,
      deployed: open.deployed,
      count: open.minersBySquare.map((m) => m.size),
      expiresAt: end === null ? null : end + EXPIRY_SLOTS,
      rentPayer: this.rentPayer,
      totalDeployed: open.deployed.reduce((a, b) => a + b, 0),
      totalMiners: open.miners.size,
    });
  }

  /** The reset: a slot hash (or none: voided), the settlement totals, the top miner. */
  private settle(open: OpenRound): Uint8Array {
    const voided = this.random.next() < this.config.voidedRoundRate;
    const slotHash = voided ? new Uint8Array(32).fill(0xff) : this.random.bytes(32);
    const winner = winningSquare(slotHash);
    const totals = settleRound(open.deployed, winner);
    let topMiner: number | null = null;
    if (winner !== null) {
      let best = 0;
      for (const [miner, stake] of open.stakeBySquare[winner]!) {
        if (stake > best) [best, topMiner] = [stake, miner];
      }
    }
    let motherlode = 0;
    if (winner !== null) {
      this.motherlodePool += MOTHERLODE_STEP;
      if (this.random.int(MOTHERLODE_ODDS) === 0) [motherlode, this.motherlodePool] = [this.motherlodePool, 0];
    }
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
}

/** A stable 32-byte "wallet" for miner n of the pool. */
function minerKey(n: number): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`gridlab-devnet-miner-${n}`).digest());
}
