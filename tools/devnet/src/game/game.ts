import type { KnownRound } from '@gridlab/contracts';
import bs58 from 'bs58';
import { board as boardAccount, roundV3, roundV4, U64_MAX } from '../program/state';
import { blockTimeOf } from './chain-time';
import { Chronicle } from './chronicle';
import { CRANK_KEY, EXPIRY_SLOTS, type DerivedRound, type RoundContext, roundSpan } from './derive-round';
import { type EraSetting, eraStarts } from './eras';
import { captureGameState, type GameState } from './game-state';

export { eraStarts, type EraSetting };

const SQUARES = 25;
/** The board's production cost is an EMA over 20 rounds (`production_cost_ema`). */
const COST_EMA_ROUNDS = 20n;
/** The cost the EMA starts from: 0.3 SOL per ORE. */
const INITIAL_PRODUCTION_COST = 300_000_000;
/** Treasury account (disc 104): `motherlode` u64 @8, then fields the devnet leaves zero. */
const TREASURY_DISCRIMINATOR = 104;
const TREASURY_LENGTH = 48;

export type GameConfig = RoundContext;

/** The board as the game keeps it (`end_slot` null while waiting for the first deploy). */
interface BoardState {
  readonly roundId: number;
  readonly startSlot: number;
  readonly endSlot: number | null;
}

const LAYOUT_V4 = 952;
const SPLIT_ADDRESS = 'SpLiT11111111111111111111111111111111111112';

/** An account the game wrote this slot. */
export type GameWrite =
  | { readonly kind: 'board'; readonly data: Uint8Array }
  | { readonly kind: 'treasury'; readonly data: Uint8Array }
  | { readonly kind: 'round'; readonly roundId: number; readonly data: Uint8Array };

/** A round that settled, with what the indexer should store for it. */
export interface SettledRound {
  readonly round: DerivedRound;
  readonly record: KnownRound;
}

export interface TickResult {
  readonly writes: readonly GameWrite[];
  /** The round that settled this slot, if any. */
  readonly settled: SettledRound | null;
}

/**
 * The ORE round lifecycle as a pure function of the slot: the board waits for a first
 * deploy, the round runs `roundSlots` slots of deploys, then `intermissionSlots`, then
 * the reset writes the slot hash and settlement totals into the round, the motherlode
 * into the treasury, and moves the board on. Rounds come from the Chronicle (derived
 * from the seed), so history played at genesis and live rounds are the same game.
 */
export class Game {
  readonly chronicle: Chronicle;
  private board: BoardState;
  /** The current round (the board's), derived ahead: its deploys land as slots pass. */
  private live: DerivedRound;
  private applied = 0;
  private readonly deployed = new Array<number>(SQUARES).fill(0);
  private readonly count = new Array<number>(SQUARES).fill(0);
  private readonly miners = new Set<number>();
  private pool = 0;
  private productionCost = INITIAL_PRODUCTION_COST;

  /**
   * Plays `historyRounds` rounds ending at `genesisSlot` (spaced as live rounds are), each
   * handed to `onHistory` as it settles, then opens the first live round.
   */
  constructor(
    readonly config: GameConfig,
    readonly historyRounds: number,
    readonly genesisSlot: number,
    onHistory: (settled: SettledRound) => void = () => undefined,
  ) {
    let span = 0;
    for (let id = 1; id <= historyRounds; id++) span += roundSpan(config, id);
    this.chronicle = new Chronicle(config, genesisSlot - span);
    for (let id = 1; id <= historyRounds; id++) onHistory(this.settle(this.chronicle.append(this.pool)));
    this.live = this.chronicle.append(this.pool);
    // The last history reset is at the genesis slot; the board then waits from the next slot.
    this.board = { roundId: this.live.id, startSlot: genesisSlot + 1, endSlot: null };
  }

  /** What the ledger file keeps of the game (game-state.ts): the settings it was started with. */
  saveState(): GameState {
    return captureGameState(this.config, this.historyRounds, this.genesisSlot);
  }

  get currentRoundId(): number {
    return this.board.roundId;
  }

  /** The motherlode pool (ORE base units), as the treasury holds it. */
  get motherlodePool(): number {
    return this.pool;
  }

  boardBytes(): Uint8Array {
    // The board's fourth u64 is the epoch (0) for v3 rounds, the production cost after.
    return boardAccount({ ...this.board, fourth: this.live.layout === LAYOUT_V4 ? this.productionCost : 0 });
  }

  roundBytes(): Uint8Array {
    return this.encodeOpen();
  }

  treasuryBytes(): Uint8Array {
    const data = new Uint8Array(TREASURY_LENGTH);
    data[0] = TREASURY_DISCRIMINATOR;
    new DataView(data.buffer).setBigUint64(8, BigInt(this.pool), true);
    return data;
  }

  /** Advances to `slot` (called once per slot); `emit` false computes the same state without encoding writes. */
  tick(slot: number, emit = true): TickResult {
    const writes: GameWrite[] = [];
    const round = this.live;
    if (this.board.endSlot === null) {
      if (slot < round.startSlot) return { writes, settled: null };
      this.board = { ...this.board, startSlot: round.startSlot, endSlot: round.endSlot };
      if (emit) writes.push({ kind: 'board', data: this.boardBytes() });
    }
    if (slot < round.endSlot) {
      const before = this.applied;
      const deploys = round.deploys;
      while (this.applied < deploys.length && deploys.slot[this.applied]! <= slot) this.apply(deploys.miner[this.applied]!, deploys.deployed[this.applied]!, deploys.amount[this.applied++]!);
      if (emit && this.applied !== before) writes.push({ kind: 'round', roundId: round.id, data: this.encodeOpen() });
      return { writes, settled: null };
    }
    if (slot < round.resetSlot) return { writes, settled: null };
    const settled = this.settle(round);
    this.live = this.chronicle.append(this.pool);
    this.board = { roundId: this.live.id, startSlot: slot + 1, endSlot: null };
    this.applied = 0;
    this.deployed.fill(0);
    this.count.fill(0);
    this.miners.clear();
    if (emit) {
      writes.push({ kind: 'round', roundId: round.id, data: round.account });
      writes.push({ kind: 'treasury', data: this.treasuryBytes() });
      writes.push({ kind: 'board', data: this.boardBytes() });
      writes.push({ kind: 'round', roundId: this.live.id, data: this.encodeOpen() });
    }
    return { writes, settled };
  }

  /** The reset's effects beyond the round account: the motherlode pool, the board's cost, the stored record. */
  private settle(round: DerivedRound): SettledRound {
    const poolBefore = this.pool;
    this.pool = round.poolAfter;
    if (round.productionCost !== null) {
      const ema = BigInt(this.productionCost);
      this.productionCost = this.productionCost === 0 ? round.productionCost : Number((BigInt(round.productionCost) + (COST_EMA_ROUNDS - 1n) * ema) / COST_EMA_ROUNDS);
    }
    const record = settledRecord(round, new Date(blockTimeOf(round.resetSlot) * 1000), round.layout === LAYOUT_V4 ? this.productionCost : null, poolBefore);
    return { round, record };
  }

  private apply(miner: number, deployed: number, amount: number): void {
    if (deployed === 0) return;
    this.miners.add(miner);
    for (let s = 0; s < SQUARES; s++) {
      if ((deployed & (1 << s)) === 0) continue;
      this.deployed[s]! += amount;
      this.count[s]! += 1;
    }
  }

  /** The open round as deploy.rs leaves it: stakes, counts and miners so far, no randomness, no totals. */
  private encodeOpen(): Uint8Array {
    const round = this.live;
    const fields = {
      id: round.id,
      deployed: this.deployed,
      count: this.count,
      slotHash: new Uint8Array(32),
      // u64::MAX until the first deploy starts the round.
      expiresAt: this.board.endSlot === null ? U64_MAX : round.endSlot + EXPIRY_SLOTS,
      motherlode: 0,
      rentPayer: CRANK_KEY,
      topMiner: new Uint8Array(32),
      reward: 0,
      totalMiners: this.miners.size,
      totalVaulted: 0,
      totalWinnings: 0,
    };
    return round.layout === LAYOUT_V4 ? roundV4(fields) : roundV3(fields);
  }
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/**
 * What the indexer should store for a settled round, from the game's own figures (not by
 * decoding the account it wrote: the indexer's decoder is what this is checked against).
 * A voided round's `totalDeployed` is what was deployed and refunded where the chain still
 * shows it (v3 keeps `deployed`; a 952-byte `returns` round writes the refund as
 * `total_winnings`), and 0 where the reset erased it (a 952-byte parimutuel round).
 */
function settledRecord(round: DerivedRound, settledAt: Date, productionCost: number | null, poolBefore: number): KnownRound {
  const current = round.layout === LAYOUT_V4;
  const voided = round.winningSquare === null;
  const erased = current && voided;
  const deployed = erased ? new Array<number>(SQUARES).fill(0) : [...round.deployed];
  const total = round.deployed.reduce((a, b) => a + b, 0);
  const topMiner = bs58.encode(round.reset.topMiner);
  return {
    id: round.id,
    deployed,
    count: [...round.count],
    winningSquare: round.winningSquare,
    totalDeployed: erased ? round.reset.totalWinnings : total,
    totalWinnings: round.reset.totalWinnings,
    totalVaulted: round.reset.totalVaulted,
    totalMiners: round.miners,
    motherlode: round.reset.motherlode,
    topMinerReward: round.reward,
    slotHash: hex(round.slotHash),
    settledAt: settledAt.toISOString(),
    payoutRule: round.rule,
    oreReward: current ? round.reward : null,
    topMiner: current ? topMiner : null,
    split: current ? topMiner === SPLIT_ADDRESS : null,
    productionCost: current ? productionCost : null,
    source: 'account',
    motherlodePool: round.reset.motherlode > 0 ? round.reset.motherlode : poolBefore,
  };
}
