import { Type, described, literals, nullable, type Static } from './kit';

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

const roundId = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const safeInt = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
const count = Type.Integer({ minimum: 0 });
const num = Type.Number();
/** ORE base units as a decimal string (sums may pass 2^53). */
export const oreAmountSchema = Type.String({ pattern: '^(0|[1-9][0-9]*)$', maxLength: 40 });

const exitReason = literals(['stop_loss_streak', 'take_profit', 'session_stop_loss']);
export type ExitReason = Static<typeof exitReason>;

/**
 * A strategy's DSL as the bus carries it: any object here, since @gridlab/strategy checks
 * and normalizes it and names each problem's path; the documents detail it (StrategyDsl).
 */
export const strategyDslSchema = Type.Unsafe<Record<string, unknown>>(Type.Ref('StrategyDsl'));
/**
 * The bus's own StrategyDsl: any object (the lab services normalize it and name each bad
 * path). Registered with ajv so the `$ref` above resolves; the documents use
 * @gridlab/strategy's full `dslSchema` under the same name.
 */
export const busStrategyDslSchema = Type.Object({}, { $id: 'StrategyDsl' });

export const backtestRequestSchema = Type.Object(
  {
    dsl: strategyDslSchema,
    fromRoundId: Type.Optional(
      described(
        roundId,
        'Inclusive lower bound. Given: the window is exactly [fromRoundId, toRoundId or the latest round] and may hold at most 200,000 stored rounds.',
      ),
    ),
    toRoundId: Type.Optional(
      described(
        roundId,
        'Inclusive upper bound (default: the latest round). Without fromRoundId the window is the latest 200,000 stored rounds up to it.',
      ),
    ),
  },
  { $id: 'BacktestRequest', additionalProperties: false },
);
/** POST /lab/backtest. */
export type BacktestRequest = Static<typeof backtestRequestSchema>;

export const analyticsRequestSchema = Type.Object({ dsl: strategyDslSchema }, { $id: 'AnalyticsRequest', additionalProperties: false });
/** POST /lab/analytics. */
export type AnalyticsRequest = Static<typeof analyticsRequestSchema>;

const summaryProperties = {
  totalRounds: described(count, 'Non-voided rounds in the window'),
  roundsBet: described(count, 'Rounds in which a stake was placed'),
  roundsWon: described(count, 'Bet-rounds whose chosen squares included the winning square'),
  squaresBet: described(count, 'Sum over bet-rounds of the squares with a stake > 0'),
  squaresWonOn: described(count, 'Equal to roundsWon'),
  netProfitLamports: described(
    safeInt,
    'Net PnL of the run (payouts less stakes and transaction fees; under `returns`, the payout is the SOL back on every square bet plus the value of the ORE earned)',
  ),
  netProfitSol: described(num, 'netProfitLamports / 1e9'),
  oreEarned: described(
    oreAmountSchema,
    'ORE earned on rounds settled under the `returns` payout rule (SPEC 7.7), in base units (1 ORE = 1e11), as a decimal string since a sum may pass 2^53; "0" when none. With our stake S_w on the winning square (D_w deployed by others): floor(R*S_w/(D_w+S_w)) of the round\'s ORE reward R when the round was split, else all of R when the top-miner draw reverse_bits(rng) % (D_w+S_w) >= D_w lands on our stake (placed last), plus floor(M*S_w/(D_w+S_w)) of the motherlode M. Its value, floor(ore * productionCost / 1e11) lamports at the production cost recorded with each round (0 when unknown), is included in netProfitLamports.',
  ),
  solReturnedNetLamports: described(
    safeInt,
    "The SOL-only part of netProfitLamports: SOL paid back (stakes back less fees per square under `returns`; the winners' payout under `parimutuel`) less stakes and transaction fees, without the value of the ORE earned. Equals netProfitLamports when no ORE was earned.",
  ),
  totalStakeLamports: described(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), 'Sum of every stake'),
  totalStakeSol: described(num, 'totalStakeLamports / 1e9'),
  totalRecoveryLamports: described(safeInt, 'Sum of the PnL of winning bet-rounds that ended a losing streak'),
  totalRecoverySol: described(num, 'totalRecoveryLamports / 1e9'),
  roiPercent: described(num, '100 * netProfit / totalStake (0 when nothing was staked)'),
  winRate: described(Type.Number({ minimum: 0, maximum: 1 }), 'roundsWon / roundsBet (0 when nothing was bet)'),
  perSquareWinRate: described(Type.Number({ minimum: 0, maximum: 1 }), 'squaresWonOn / squaresBet (0 when nothing was bet)'),
  maxStreak: described(count, 'Longest losing streak (consecutive bet-rounds with PnL < 0), an open one at the end included'),
  capHits: described(count, 'Rounds in which max_bet_per_square_lamports reduced a stake'),
  totalCapLossSol: described(num, 'Losses of the losing rounds that had a cap hit (a positive amount)'),
  minWalletSol: described(num, 'Minimum of the running net PnL (<= 0)'),
  maxDrawdownSol: described(num, 'Largest peak-to-trough fall of the running net PnL'),
  rangeMin: described(roundId, 'First non-voided round id of the window (the first stored id when all are voided)'),
  rangeMax: described(roundId, 'Last non-voided round id of the window (the last stored id when all are voided)'),
  exitedEarly: described(nullable(exitReason), 'Why the run stopped early (checked after each bet-round in this order of precedence), or null'),
  exitRoundId: described(roundId, 'Round at which the exit triggered, or rangeMax when there was none'),
  perSquare: described(
    Type.Array(
      Type.Object(
        { square: Type.Integer({ minimum: 0, maximum: 24 }), betCount: count, winCount: count, netLamports: safeInt },
        { additionalProperties: false },
      ),
      { minItems: 25, maxItems: 25 },
    ),
    'Per square: bet-rounds, wins, and net lamports, fees excluded. Parimutuel rounds: payout less stake on the winning square, -stake elsewhere. Returns rounds: SOL back less stake on every square bet, plus the value of the ORE earned on the winning square.',
  ),
  streakRunLengths: described(Type.Array(Type.Integer({ minimum: 1 })), 'Length of every losing streak, in order'),
};

const backtestSummary = Type.Object(summaryProperties, { additionalProperties: false });
/** SPEC 7.8 result fields without the per-round arrays (analytics' baseline). */
export type BacktestSummary = Static<typeof backtestSummary>;

const resultProperties = {
  ...summaryProperties,
  equityCurve: described(
    Type.Array(Type.Object({ round: roundId, balanceLamports: safeInt }, { additionalProperties: false }), { maxItems: 2000 }),
    'Running net PnL after each replayed round, downsampled to at most 2000 points keeping the first, the last, and each slice’s minimum and maximum',
  ),
  perRoundPnlLamports: described(Type.Array(safeInt), 'PnL of each non-voided round of the window, in id order (0 when no bet)'),
};

export const backtestResultSchema = Type.Object(resultProperties, { $id: 'BacktestResult', additionalProperties: false });
/** The seed's Backtest result (SPEC 7.8). */
export type BacktestResult = Static<typeof backtestResultSchema>;

const distribution = Type.Object({ p5: num, p50: num, p95: num, mean: num }, { additionalProperties: false });
export type Distribution = Static<typeof distribution>;
const sweepValue = Type.Unsafe<number | string>({ type: ['number', 'string'] });

export const analyticsSchema = Type.Object(
  {
    asOfRoundId: described(roundId, 'Latest round of the analysed window'),
    baseline: described(backtestSummary, 'The backtest of the default window without equityCurve and perRoundPnlLamports'),
    monteCarlo: Type.Object(
      {
        iterations: described(count, 'Bootstrap resamples (1000)'),
        seed: described(Type.Integer({ minimum: 0, maximum: 0xffff_ffff }), 'PRNG seed of the resampling'),
        bootstrap: Type.Object(
          {
            method: Type.Literal('moving block bootstrap'),
            blockLength: count,
            netProfitSol: distribution,
            roiPercent: distribution,
            maxDrawdownSol: distribution,
            probabilityOfProfit: Type.Number({ minimum: 0, maximum: 1, description: 'Share of resamples with a positive net' }),
          },
          {
            additionalProperties: false,
            description: 'Moving block bootstrap of the per-round PnL: p5/p50/p95/mean of each figure over the resamples',
          },
        ),
        randomOutcomes: Type.Object(
          {
            method: Type.Literal('decisions fixed, winning squares uniform, normal approximation'),
            expectedNetProfitSol: num,
            stdDevSol: Type.Number({ minimum: 0 }),
            zScore: num,
            pValue: Type.Number({ minimum: 0, maximum: 1 }),
          },
          {
            additionalProperties: false,
            description:
              'Is the result better than chance? Decisions and stakes kept, winning squares uniform over 25: expected net and standard deviation under chance, z-score and one-sided p-value of the observed net',
          },
        ),
      },
      { additionalProperties: false },
    ),
    sweeps: Type.Array(
      Type.Object(
        {
          param: Type.String(),
          values: Type.Array(sweepValue),
          results: Type.Array(
            Type.Object(
              {
                value: sweepValue,
                roiPercent: num,
                netProfitSol: num,
                maxDrawdownSol: num,
                winRate: Type.Number({ minimum: 0, maximum: 1 }),
                roundsBet: count,
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 4,
        maxItems: 4,
        description:
          'num_squares 1,2,3,5,8,12,25 (bet_size_lamports x0.25..x4 for fixed shapes and custom_squares); drought_threshold 10..150 (drought, cold) or hit_rate_lookback 50..2500; sizing_mode (all six); cooldown_after_loss_rounds 0,1,2,5,10',
      },
    ),
  },
  {
    $id: 'Analytics',
    additionalProperties: false,
    description:
      'SPEC 7.9. Seeded (identical input and history give identical output); cached per normalized DSL and 100-round bucket of the latest round.',
  },
);
/** SPEC 7.9 analytics. */
export type Analytics = Static<typeof analyticsSchema>;
