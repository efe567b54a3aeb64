import type { SchemaObject } from 'ajv';

// Strategy Lab commands answered by lab-backtest (NATS request/reply, queue group
// `lab-backtest`). The gateway validates the HTTP body against the same request schema;
// the DSL itself is checked (and normalized) by the service with @gridlab/strategy, which
// reports every problem with its JSON path, so here it is only "an object".
//
// Results can exceed NATS' 1 MiB max payload (a backtest's per-round array): the reply
// envelope ({ok, result} | {ok: false, error}) is sent as one or more chunks to the
// requester's inbox, each carrying CHUNK_HEADER (0-based index) and CHUNKS_HEADER (count);
// the requester concatenates them in index order and parses the whole.

/** Header of a chunked reply: this chunk's 0-based index. */
export const CHUNK_HEADER = 'Gridlab-Chunk';
/** Header of a chunked reply: how many chunks the reply has. */
export const CHUNKS_HEADER = 'Gridlab-Chunks';
/** Header of an analytics reply: `hit` when served from the analytics cache, else `miss`. */
export const CACHE_HEADER = 'Gridlab-Cache';
/** Lab request header: who asks (the subscriber id), so lab-backtest queues jobs fairly across callers. */
export const CLIENT_HEADER = 'Gridlab-Client';
/** Lab request header: epoch milliseconds after which the caller no longer waits; the job is dropped or stopped then. */
export const DEADLINE_HEADER = 'Gridlab-Deadline';

const roundId = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const safeInt = { type: 'integer', minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER } as const;
const count = { type: 'integer', minimum: 0 } as const;
const num = { type: 'number' } as const;
/** ORE base units as a decimal string (sums may pass 2^53). */
export const oreAmountSchema = { type: 'string', pattern: '^(0|[1-9][0-9]*)$', maxLength: 40 } as const;

/** POST /lab/backtest. */
export interface BacktestRequest {
  /** A Strategy DSL (normalized and checked by lab-backtest). */
  readonly dsl: Record<string, unknown>;
  readonly fromRoundId?: number;
  readonly toRoundId?: number;
}

/** POST /lab/analytics. */
export interface AnalyticsRequest {
  readonly dsl: Record<string, unknown>;
}

export type ExitReason = 'stop_loss_streak' | 'take_profit' | 'session_stop_loss';

/** SPEC 7.8 result fields without the per-round arrays (analytics' baseline). */
export interface BacktestSummary {
  readonly totalRounds: number;
  readonly roundsBet: number;
  readonly roundsWon: number;
  readonly squaresBet: number;
  readonly squaresWonOn: number;
  readonly netProfitLamports: number;
  readonly netProfitSol: number;
  /**
   * ORE earned on `returns` rounds (SPEC 7.7), base units (1 ORE = 1e11) as a decimal
   * string (it may pass 2^53); "0" when none. Its value at each round's production cost
   * is part of netProfitLamports.
   */
  readonly oreEarned: string;
  /**
   * The SOL-only part of netProfitLamports: SOL paid back (stakes back, parimutuel
   * winnings) less stakes and fees, without the ORE's value.
   */
  readonly solReturnedNetLamports: number;
  readonly totalStakeLamports: number;
  readonly totalStakeSol: number;
  readonly totalRecoveryLamports: number;
  readonly totalRecoverySol: number;
  readonly roiPercent: number;
  readonly winRate: number;
  readonly perSquareWinRate: number;
  readonly maxStreak: number;
  readonly capHits: number;
  readonly totalCapLossSol: number;
  readonly minWalletSol: number;
  readonly maxDrawdownSol: number;
  readonly rangeMin: number;
  readonly rangeMax: number;
  readonly exitedEarly: ExitReason | null;
  readonly exitRoundId: number;
  readonly perSquare: readonly { readonly square: number; readonly betCount: number; readonly winCount: number; readonly netLamports: number }[];
  readonly streakRunLengths: readonly number[];
}

/** The seed's Backtest result (SPEC 7.8). */
export interface BacktestResult extends BacktestSummary {
  readonly equityCurve: readonly { readonly round: number; readonly balanceLamports: number }[];
  readonly perRoundPnlLamports: readonly number[];
}

export interface Distribution {
  readonly p5: number;
  readonly p50: number;
  readonly p95: number;
  readonly mean: number;
}

/** SPEC 7.9 analytics. */
export interface Analytics {
  readonly asOfRoundId: number;
  readonly baseline: BacktestSummary;
  readonly monteCarlo: {
    readonly iterations: number;
    readonly seed: number;
    readonly bootstrap: {
      readonly method: 'moving block bootstrap';
      readonly blockLength: number;
      readonly netProfitSol: Distribution;
      readonly roiPercent: Distribution;
      readonly maxDrawdownSol: Distribution;
      readonly probabilityOfProfit: number;
    };
    readonly randomOutcomes: {
      readonly method: 'decisions fixed, winning squares uniform, normal approximation';
      readonly expectedNetProfitSol: number;
      readonly stdDevSol: number;
      readonly zScore: number;
      readonly pValue: number;
    };
  };
  readonly sweeps: readonly {
    readonly param: string;
    readonly values: readonly (number | string)[];
    readonly results: readonly {
      readonly value: number | string;
      readonly roiPercent: number;
      readonly netProfitSol: number;
      readonly maxDrawdownSol: number;
      readonly winRate: number;
      readonly roundsBet: number;
    }[];
  }[];
}

export const backtestRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:backtest-request',
  type: 'object',
  additionalProperties: false,
  required: ['dsl'],
  properties: { dsl: { type: 'object' }, fromRoundId: roundId, toRoundId: roundId },
};

export const analyticsRequestSchema: SchemaObject = {
  $id: 'urn:gridlab:analytics-request',
  type: 'object',
  additionalProperties: false,
  required: ['dsl'],
  properties: { dsl: { type: 'object' } },
};

const summaryProperties = {
  totalRounds: count,
  roundsBet: count,
  roundsWon: count,
  squaresBet: count,
  squaresWonOn: count,
  netProfitLamports: safeInt,
  netProfitSol: num,
  oreEarned: oreAmountSchema,
  solReturnedNetLamports: safeInt,
  totalStakeLamports: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  totalStakeSol: num,
  totalRecoveryLamports: safeInt,
  totalRecoverySol: num,
  roiPercent: num,
  winRate: { type: 'number', minimum: 0, maximum: 1 },
  perSquareWinRate: { type: 'number', minimum: 0, maximum: 1 },
  maxStreak: count,
  capHits: count,
  totalCapLossSol: num,
  minWalletSol: num,
  maxDrawdownSol: num,
  rangeMin: roundId,
  rangeMax: roundId,
  exitedEarly: { enum: ['stop_loss_streak', 'take_profit', 'session_stop_loss', null] },
  exitRoundId: roundId,
  perSquare: {
    type: 'array',
    minItems: 25,
    maxItems: 25,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['square', 'betCount', 'winCount', 'netLamports'],
      properties: { square: { type: 'integer', minimum: 0, maximum: 24 }, betCount: count, winCount: count, netLamports: safeInt },
    },
  },
  streakRunLengths: { type: 'array', items: { type: 'integer', minimum: 1 } },
};

const backtestSummary = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(summaryProperties),
  properties: summaryProperties,
};

const resultProperties = {
  ...summaryProperties,
  equityCurve: {
    type: 'array',
    maxItems: 2000,
    items: {
      type: 'object',
      additionalProperties: false,
      required: ['round', 'balanceLamports'],
      properties: { round: roundId, balanceLamports: safeInt },
    },
  },
  perRoundPnlLamports: { type: 'array', items: safeInt },
};

export const backtestResultSchema: SchemaObject = {
  $id: 'urn:gridlab:backtest-result',
  type: 'object',
  additionalProperties: false,
  required: Object.keys(resultProperties),
  properties: resultProperties,
};

const distribution = {
  type: 'object',
  additionalProperties: false,
  required: ['p5', 'p50', 'p95', 'mean'],
  properties: { p5: num, p50: num, p95: num, mean: num },
};
const sweepValue = { type: ['number', 'string'] };

export const analyticsSchema: SchemaObject = {
  $id: 'urn:gridlab:analytics',
  type: 'object',
  additionalProperties: false,
  required: ['asOfRoundId', 'baseline', 'monteCarlo', 'sweeps'],
  properties: {
    asOfRoundId: roundId,
    baseline: backtestSummary,
    monteCarlo: {
      type: 'object',
      additionalProperties: false,
      required: ['iterations', 'seed', 'bootstrap', 'randomOutcomes'],
      properties: {
        iterations: count,
        seed: { type: 'integer', minimum: 0, maximum: 0xffff_ffff },
        bootstrap: {
          type: 'object',
          additionalProperties: false,
          required: ['method', 'blockLength', 'netProfitSol', 'roiPercent', 'maxDrawdownSol', 'probabilityOfProfit'],
          properties: {
            method: { const: 'moving block bootstrap' },
            blockLength: count,
            netProfitSol: distribution,
            roiPercent: distribution,
            maxDrawdownSol: distribution,
            probabilityOfProfit: { type: 'number', minimum: 0, maximum: 1 },
          },
        },
        randomOutcomes: {
          type: 'object',
          additionalProperties: false,
          required: ['method', 'expectedNetProfitSol', 'stdDevSol', 'zScore', 'pValue'],
          properties: {
            method: { const: 'decisions fixed, winning squares uniform, normal approximation' },
            expectedNetProfitSol: num,
            stdDevSol: { type: 'number', minimum: 0 },
            zScore: num,
            pValue: { type: 'number', minimum: 0, maximum: 1 },
          },
        },
      },
    },
    sweeps: {
      type: 'array',
      minItems: 4,
      maxItems: 4,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['param', 'values', 'results'],
        properties: {
          param: { type: 'string' },
          values: { type: 'array', items: sweepValue },
          results: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['value', 'roiPercent', 'netProfitSol', 'maxDrawdownSol', 'winRate', 'roundsBet'],
              properties: {
                value: sweepValue,
                roiPercent: num,
                netProfitSol: num,
                maxDrawdownSol: num,
                winRate: { type: 'number', minimum: 0, maximum: 1 },
                roundsBet: count,
              },
            },
          },
        },
      },
    },
  },
};
