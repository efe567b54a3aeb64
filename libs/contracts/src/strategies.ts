import type { SchemaObject } from 'ajv';
import { oreAmountSchema } from './lab';

// Strategy records, forward-test stats and the leaderboard: commands answered by
// lab-forward (NATS request/reply, queue group `lab-forward`). Every owner-scoped request
// carries the caller's subscriberId (the gateway's authentication decides it; lab-forward
// maps it to the owner wallet through billing's subscribers). The gateway validates an
// HTTP body against the body schema; lab-forward validates the whole request. The DSL is
// checked and normalized by @gridlab/strategy, which reports problems with their JSON
// path, so here it is only "an object".

const STRATEGY_ID_PATTERN = '^stg_[1-9A-HJ-NP-Za-km-z]{22}$';
const strategyId = { type: 'string', pattern: STRATEGY_ID_PATTERN } as const;
const subscriberId = { type: 'string', pattern: '^sub_[1-9A-HJ-NP-Za-km-z]{22}$' } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;
const roundId = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const nullableRoundId = { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const count = { type: 'integer', minimum: 0 } as const;
const lamports = { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;
const num = { type: 'number' } as const;
const fraction = { type: 'number', minimum: 0, maximum: 1 } as const;
/** Names are 1..80 characters after trimming; the raw string may carry surrounding blanks. */
const rawName = { type: 'string', minLength: 1, maxLength: 200 } as const;
const stoppedReason = { type: ['string', 'null'], enum: ['stop_loss_streak', 'take_profit', 'session_stop_loss', 'subscription_expired', null] } as const;

/** Strategy ids: `stg_` + 22 base58 characters. */
export const STRATEGY_ID_RE = new RegExp(STRATEGY_ID_PATTERN);
/** Strategies one owner may hold (SPEC 7.10). */
export const MAX_STRATEGIES_PER_OWNER = 100;
/** Longest strategy name, after trimming. */
export const MAX_STRATEGY_NAME = 80;

/** A strategy stops on its DSL's exits, or while its owner's subscription has lapsed (resumed on renewal). */
export type StopReason = 'stop_loss_streak' | 'take_profit' | 'session_stop_loss' | 'subscription_expired';

/** A stored strategy (the seed's Strategy plus why and where its last session stopped). */
export interface Strategy {
  readonly id: string;
  /** The owner's wallet key. */
  readonly owner: string;
  readonly name: string;
  /** The normalized DSL. */
  readonly dsl: Record<string, unknown>;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly active: boolean;
  /** The stop (SPEC 7.6) that ended the last session, or null. */
  readonly stoppedReason: StopReason | null;
  readonly stoppedAtRoundId: number | null;
}

/** The figures a strategy list item carries. */
export interface StrategyListStats {
  readonly roundsSettled: number;
  readonly roundsWon: number;
  readonly netProfitSol: number;
  readonly roiPercent: number;
}

export interface StrategyListItem {
  readonly id: string;
  readonly name: string;
  readonly dsl: Record<string, unknown>;
  readonly active: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly stoppedReason: StopReason | null;
  readonly stoppedAtRoundId: number | null;
  readonly stats: StrategyListStats;
}

/** POST /lab/strategies body. */
export interface StrategyCreateBody {
  readonly name: string;
  readonly dsl: Record<string, unknown>;
}

/** PATCH /lab/strategies/{id} body: only these two fields. */
export interface StrategyUpdateBody {
  readonly name?: string;
  readonly active?: boolean;
}

export interface StrategyOwnerRequest {
  readonly subscriberId: string;
}
export interface StrategyCreateRequest extends StrategyOwnerRequest, StrategyCreateBody {}
export interface StrategyIdRequest extends StrategyOwnerRequest {
  readonly id: string;
}
export interface StrategyUpdateRequest extends StrategyIdRequest, StrategyUpdateBody {}

export interface StrategyReply {
  readonly strategy: Strategy;
}
export interface StrategyDetailReply {
  readonly strategy: Strategy;
  /** Predictions recorded for the strategy (settled or not). */
  readonly predictionCount: number;
}
export interface StrategyListReply {
  readonly count: number;
  readonly strategies: readonly StrategyListItem[];
}
export interface StrategyDeleteReply {
  readonly ok: true;
}

export interface ForwardEquityPoint {
  readonly round: number;
  readonly balanceLamports: number;
}

/** GET /lab/strategies/{id}/forward: the seed's Forward-test stats plus SPEC 7.10's counts. */
export interface ForwardStats {
  readonly strategyId: string;
  readonly active: boolean;
  /** Rounds seen while active (voided ones included). */
  readonly roundsObserved: number;
  /** Non-voided rounds settled while active (a backtest's totalRounds). */
  readonly roundsSettled: number;
  readonly roundsBet: number;
  readonly roundsWon: number;
  readonly squaresBet: number;
  readonly squaresWon: number;
  readonly netProfitLamports: number;
  readonly netProfitSol: number;
  /** ORE earned on `returns` rounds (SPEC 7.7), base units as a decimal string; its value is in netProfitLamports. */
  readonly oreEarned: string;
  /** The SOL-only part of netProfitLamports (without the ORE's value), as in a backtest. */
  readonly solReturnedNetLamports: number;
  readonly totalStakeLamports: number;
  readonly totalStakeSol: number;
  readonly roiPercent: number;
  readonly winRate: number;
  readonly perSquareWinRate: number;
  readonly maxDrawdownSol: number;
  readonly minWalletSol: number;
  readonly maxStreak: number;
  readonly equityCurve: readonly ForwardEquityPoint[];
  /** Recorded, unsettled predictions. */
  readonly pendingCount: number;
  /** Predictions decided after their round had settled (caught up after downtime). */
  readonly lateCount: number;
  /** First round of the current (or last) session; null before the strategy's first session starts. */
  readonly sessionStartRoundId: number | null;
  /** Last round settled for the strategy, or null. */
  readonly lastSettledRoundId: number | null;
  readonly stoppedReason: StopReason | null;
  readonly stoppedAtRoundId: number | null;
}

export interface LeaderboardEntry {
  readonly rank: number;
  readonly id: string;
  readonly name: string;
  readonly ownerShort: string;
  readonly roiPercent: number;
  readonly roundsSettled: number;
}

/** GET /lab/leaderboard. */
export interface Leaderboard {
  readonly generatedAt: string;
  readonly minRoundsToQualify: number;
  readonly count: number;
  readonly entries: readonly LeaderboardEntry[];
}

export interface LeaderboardEntryRequest {
  readonly id: string;
}

/** GET /lab/leaderboard/{id}. */
export interface LeaderboardDetail {
  readonly strategy: {
    readonly id: string;
    readonly name: string;
    readonly ownerShort: string;
    readonly dsl: Record<string, unknown>;
    readonly createdAt: string;
  };
  readonly forwardTest: {
    readonly rank: number;
    readonly roundsSettled: number;
    readonly netProfitSol: number;
    readonly roiPercent: number;
    readonly equityCurve: readonly ForwardEquityPoint[];
  };
}

const equityCurve = {
  type: 'array',
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['round', 'balanceLamports'],
    properties: { round: roundId, balanceLamports: lamports },
  },
} as const;

const strategyProperties = {
  id: strategyId,
  owner: { type: 'string', minLength: 32, maxLength: 44 },
  name: { type: 'string', minLength: 1, maxLength: MAX_STRATEGY_NAME },
  dsl: { type: 'object' },
  createdAt: isoTime,
  updatedAt: isoTime,
  active: { type: 'boolean' },
  stoppedReason,
  stoppedAtRoundId: nullableRoundId,
} as const;

const strategyObject = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'owner', 'name', 'dsl', 'createdAt', 'updatedAt', 'active', 'stoppedReason', 'stoppedAtRoundId'],
  properties: strategyProperties,
} as const;

export const strategyCreateBodySchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-create-body',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'dsl'],
  properties: { name: rawName, dsl: { type: 'object' } },
};

export const strategyUpdateBodySchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-update-body',
  type: 'object',
  additionalProperties: false,
  properties: { name: rawName, active: { type: 'boolean' } },
};

export const strategyOwnerRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-owner-request',
  type: 'object',
  additionalProperties: false,
  required: ['subscriberId'],
  properties: { subscriberId },
};

export const strategyCreateRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-create-request',
  type: 'object',
  additionalProperties: false,
  required: ['subscriberId', 'name', 'dsl'],
  properties: { subscriberId, name: rawName, dsl: { type: 'object' } },
};

export const strategyIdRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-id-request',
  type: 'object',
  additionalProperties: false,
  required: ['subscriberId', 'id'],
  properties: { subscriberId, id: strategyId },
};

export const strategyUpdateRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-update-request',
  type: 'object',
  additionalProperties: false,
  required: ['subscriberId', 'id'],
  properties: { subscriberId, id: strategyId, name: rawName, active: { type: 'boolean' } },
};

export const strategyReplySchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-reply',
  type: 'object',
  additionalProperties: false,
  required: ['strategy'],
  properties: { strategy: strategyObject },
};

export const strategyDetailReplySchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-detail-reply',
  type: 'object',
  additionalProperties: false,
  required: ['strategy', 'predictionCount'],
  properties: { strategy: strategyObject, predictionCount: count },
};

export const strategyListReplySchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-list-reply',
  type: 'object',
  additionalProperties: false,
  required: ['count', 'strategies'],
  properties: {
    count,
    strategies: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'dsl', 'active', 'createdAt', 'updatedAt', 'stoppedReason', 'stoppedAtRoundId', 'stats'],
        properties: {
          id: strategyId,
          name: strategyProperties.name,
          dsl: { type: 'object' },
          active: { type: 'boolean' },
          createdAt: isoTime,
          updatedAt: isoTime,
          stoppedReason,
          stoppedAtRoundId: nullableRoundId,
          stats: {
            type: 'object',
            additionalProperties: false,
            required: ['roundsSettled', 'roundsWon', 'netProfitSol', 'roiPercent'],
            properties: { roundsSettled: count, roundsWon: count, netProfitSol: num, roiPercent: num },
          },
        },
      },
    },
  },
};

export const strategyDeleteReplySchema: SchemaObject = {
  $id: 'urn:gridlab:strategy-delete-reply',
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { const: true } },
};

export const forwardStatsSchema: SchemaObject = {
  $id: 'urn:gridlab:forward-stats',
  type: 'object',
  additionalProperties: false,
  required: [
    'strategyId',
    'active',
    'roundsObserved',
    'roundsSettled',
    'roundsBet',
    'roundsWon',
    'squaresBet',
    'squaresWon',
    'netProfitLamports',
    'netProfitSol',
    'oreEarned',
    'solReturnedNetLamports',
    'totalStakeLamports',
    'totalStakeSol',
    'roiPercent',
    'winRate',
    'perSquareWinRate',
    'maxDrawdownSol',
    'minWalletSol',
    'maxStreak',
    'equityCurve',
    'pendingCount',
    'lateCount',
    'sessionStartRoundId',
    'lastSettledRoundId',
    'stoppedReason',
    'stoppedAtRoundId',
  ],
  properties: {
    strategyId,
    active: { type: 'boolean' },
    roundsObserved: count,
    roundsSettled: count,
    roundsBet: count,
    roundsWon: count,
    squaresBet: count,
    squaresWon: count,
    netProfitLamports: lamports,
    netProfitSol: num,
    oreEarned: oreAmountSchema,
    solReturnedNetLamports: lamports,
    totalStakeLamports: lamports,
    totalStakeSol: num,
    roiPercent: num,
    winRate: fraction,
    perSquareWinRate: fraction,
    maxDrawdownSol: { type: 'number', minimum: 0 },
    minWalletSol: { type: 'number', maximum: 0 },
    maxStreak: count,
    equityCurve,
    pendingCount: count,
    lateCount: count,
    sessionStartRoundId: nullableRoundId,
    lastSettledRoundId: nullableRoundId,
    stoppedReason,
    stoppedAtRoundId: nullableRoundId,
  },
};

export const leaderboardRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:leaderboard-request',
  type: 'object',
  additionalProperties: false,
  properties: {},
};

export const leaderboardSchema: SchemaObject = {
  $id: 'urn:gridlab:leaderboard',
  type: 'object',
  additionalProperties: false,
  required: ['generatedAt', 'minRoundsToQualify', 'count', 'entries'],
  properties: {
    generatedAt: isoTime,
    minRoundsToQualify: count,
    count,
    entries: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['rank', 'id', 'name', 'ownerShort', 'roiPercent', 'roundsSettled'],
        properties: { rank: { type: 'integer', minimum: 1 }, id: strategyId, name: strategyProperties.name, ownerShort: { type: 'string' }, roiPercent: num, roundsSettled: count },
      },
    },
  },
};

export const leaderboardEntryRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:leaderboard-entry-request',
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: strategyId },
};

export const leaderboardDetailSchema: SchemaObject = {
  $id: 'urn:gridlab:leaderboard-detail',
  type: 'object',
  additionalProperties: false,
  required: ['strategy', 'forwardTest'],
  properties: {
    strategy: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'name', 'ownerShort', 'dsl', 'createdAt'],
      properties: { id: strategyId, name: strategyProperties.name, ownerShort: { type: 'string' }, dsl: { type: 'object' }, createdAt: isoTime },
    },
    forwardTest: {
      type: 'object',
      additionalProperties: false,
      required: ['rank', 'roundsSettled', 'netProfitSol', 'roiPercent', 'equityCurve'],
      properties: { rank: { type: 'integer', minimum: 1 }, roundsSettled: count, netProfitSol: num, roiPercent: num, equityCurve },
    },
  },
};
