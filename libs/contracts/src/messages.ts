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
}

export type LiveStatus = 'waiting' | 'active' | 'intermission';

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
export const EVENT_KINDS = ['drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** One entry of the event log as the API shows it: `{ id, ts, kind, ...fields of its kind }`. */
export interface LogEvent {
  readonly id: number;
  readonly ts: string;
  readonly kind: EventKind;
  readonly [field: string]: unknown;
}
