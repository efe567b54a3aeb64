/** Wire types of NATS messages (and of the HTTP API, which uses the same shapes). */

/** How a round paid its miners (SPEC 3): SOL shared by the winners, or returned per square. */
export type PayoutRule = 'parimutuel' | 'returns';

/**
 * Where a stored round came from: its account on chain, its transactions (the account was
 * closed; see SPEC 3.2), or an imported history file that did not say.
 */
export type RoundSource = 'account' | 'transactions' | 'import';

/**
 * A settled round as stored and served (SPEC 3 "Stored round"). Lamports and ORE base
 * units are integers. The seed's fields keep their meaning under both payout rules:
 * `totalWinnings` is the SOL the winning square shared (`parimutuel`) or the SOL
 * returned to miners on every square (`returns`).
 */
export interface Round {
  readonly id: number;
  readonly deployed: number[];
  readonly count: number[];
  /** 0..24, or null when the round was voided (no RNG, stakes refunded). */
  readonly winningSquare: number | null;
  readonly totalDeployed: number;
  readonly totalWinnings: number;
  readonly totalVaulted: number;
  readonly totalMiners: number;
  readonly motherlode: number;
  readonly topMinerReward: number;
  /** 64 hex characters. */
  readonly slotHash: string;
  /** ISO 8601 UTC with milliseconds. */
  readonly settledAt: string;
  readonly payoutRule: PayoutRule;
  /** 952-byte rounds: the round's ORE reward (sum of `rewards`, base units, 11 decimals); else null. */
  readonly oreReward: number | null;
  /** 952-byte rounds: the top miner's address (the split address when split); else null. */
  readonly topMiner: string | null;
  /** 952-byte rounds: the ORE reward was split pro rata on the winning square; else null. */
  readonly split: boolean | null;
  /**
   * 952-byte rounds: the board's production cost at settlement, lamports per whole ORE;
   * else null, and null for a round rebuilt from transactions (the chain keeps no past value).
   */
  readonly productionCost: number | null;
  readonly source: RoundSource;
  /**
   * ORE in the motherlode pool the round played for (the Treasury's `motherlode` while the
   * round was live), base units; null where Gridlab did not watch the round live (history
   * rebuilt from transactions, read back after an absence, or imported without it).
   */
  readonly motherlodePool: number | null;
}

export type LiveStatus = 'waiting' | 'active' | 'intermission';

/**
 * Today's game on the live round: what decides where a stake buys the most ORE. ORE
 * amounts are base units (1 ORE = 10^11), lamports integers.
 */
export interface LiveGame {
  /** The rule the round pays by (the rule of the rounds settling now). */
  readonly payoutRule: PayoutRule;
  /** ORE the winning square's miners take: split pro rata, or all to one top miner drawn by stake. */
  readonly oreReward: number;
  /** ORE in the motherlode pool (the Treasury account), paid pro rata on the winning square one round in 500; null when not read. */
  readonly motherlodePool: number | null;
  /** The board's production cost, lamports per whole ORE; null before 952-byte rounds. */
  readonly productionCost: number | null;
  /**
   * Per square: true when its prize would be split pro rata if it wins, false when one top
   * miner takes it (fixed per round since 2026-07-29: `Round::distribution_mask`); null
   * when the round decides for whichever square wins, from its randomness (the rule before).
   */
  readonly splitSquares: boolean[] | null;
  /** The stake `evPerSol` is figured for, lamports. */
  readonly evStakeLamports: number;
  /** The ORE price `evPerSol` assumes, lamports per whole ORE: the production cost (0 when there is none). */
  readonly evOrePriceLamports: number;
  /** Per square: the expected result of that stake added now, per lamport staked (-0.05: 5% lost on average). */
  readonly evPerSol: number[];
}

/** The live snapshot of the current round (GET /live, the SSE stream, the KV bucket). */
export interface LiveSnapshot {
  readonly roundId: number;
  readonly status: LiveStatus;
  readonly deployed: number[];
  readonly count: number[];
  readonly totalDeployed: number;
  readonly totalMiners: number;
  /** Seconds until deploys close while active; 0 in intermission; null while waiting. */
  readonly secondsLeft: number | null;
  readonly slot: number;
  readonly startSlot: number;
  /** null while waiting for the first deploy. */
  readonly endSlot: number | null;
  readonly prevRound: Round | null;
  readonly updatedAt: string;
  /** Today's game; absent from snapshots of indexers older than it. */
  readonly game?: LiveGame;
}

/** The board moved to a new round: lab-forward records its predictions for it. */
export interface RoundOpened {
  readonly roundId: number;
  /** Id of the newest settled round at the time, if known. */
  readonly previousRoundId: number | null;
  readonly openedAt: string;
}

/** A key_sharing signal (SPEC 5): never the key itself, only whose it is and how widely used. */
export interface KeyShared {
  readonly subscriberId: string;
  readonly distinctAddresses: number;
  readonly windowSeconds: number;
  /** What the gateway's policy did: only warn (the default) or ask for revocation. */
  readonly policy: 'warn' | 'revoke';
  readonly detectedAt: string;
}

/** The kinds of the event log (SPEC 6); `streak` is accepted as a filter too. */
export const EVENT_KINDS = ['drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak', 'motherlode'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** One entry of the event log as the API shows it: `{ id, ts, kind, ...fields of its kind }`. */
export interface LogEvent {
  readonly id: number;
  readonly ts: string;
  readonly kind: EventKind;
  readonly [field: string]: unknown;
}
