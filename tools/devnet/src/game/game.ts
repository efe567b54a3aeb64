import { type BoardAccount, decodeRound, encodeBoard, encodeRound, layout, toSettledRound } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
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

/** An account the game wrote this slot. */
export type GameWrite =
  | { readonly kind: 'board'; readonly data: Uint8Array }
  | { readonly kind: 'treasury'; readonly data: Uint8Array }
  | { readonly kind: 'round'; readonly roundId: number; readonly data: Uint8Array };

/** A round that settled, with what the indexer should store for it. */
export interface SettledRound {
  readonly round: DerivedRound;
  readonly record: Round;
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
  private board: BoardAccount;
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
    this.board = { roundId: this.live.id, startSlot: genesisSlot + 1, endSlot: null, epochOrCost: 0 };
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
    const current = this.live.layout === layout.ROUND_LEN_CURRENT;
    // The 40-byte board's u64 @32 is the epoch (0) for v3 rounds, the production cost after.
    return encodeBoard({ ...this.board, epochOrCost: current ? this.productionCost : 0 });
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
    this.board = { roundId: this.live.id, startSlot: slot + 1, endSlot: null, epochOrCost: 0 };
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
    const current = round.layout === layout.ROUND_LEN_CURRENT;
    const record = toSettledRound(decodeRound(round.account), new Date(blockTimeOf(round.resetSlot) * 1000), {
      payoutRule: round.rule,
      productionCost: current ? this.productionCost : null,
      motherlodePool: poolBefore,
    });
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

  private encodeOpen(): Uint8Array {
    const round = this.live;
    return encodeRound(
      {
        id: round.id,
        deployed: this.deployed,
        count: this.count,
        // u64::MAX until the first deploy starts the round.
        expiresAt: this.board.endSlot === null ? null : round.endSlot + EXPIRY_SLOTS,
        rentPayer: CRANK_KEY,
        totalDeployed: this.deployed.reduce((a, b) => a + b, 0),
        totalMiners: this.miners.size,
      },
      round.layout,
    );
  }
}
