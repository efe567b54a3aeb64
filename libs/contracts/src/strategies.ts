import { Type, described, literals, nullable, type Static } from './kit';
import { oreAmountSchema, strategyDslSchema } from './lab';

// Strategy records, forward-test stats and the leaderboard: commands answered by
// lab-forward (NATS request/reply, queue group `lab-forward`). Every owner-scoped request
// carries the caller's subscriberId (the gateway's authentication decides it; lab-forward
// maps it to the owner wallet through billing's subscribers). The gateway validates an
// HTTP body against the body schema; lab-forward validates the whole request. The DSL is
// checked and normalized by @gridlab/strategy, which reports problems with their JSON
// path, so here it is only "an object".

const STRATEGY_ID_PATTERN = '^stg_[1-9A-HJ-NP-Za-km-z]{22}$';
const strategyId = Type.String({ pattern: STRATEGY_ID_PATTERN });
const subscriberId = Type.String({ pattern: '^sub_[1-9A-HJ-NP-Za-km-z]{22}$' });
const isoTime = Type.String({ format: 'date-time' });
const roundId = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const nullableRoundId = nullable(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }));
const count = Type.Integer({ minimum: 0 });
const lamports = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });
const num = Type.Number();
const fraction = Type.Number({ minimum: 0, maximum: 1 });
/** Names are 1..80 characters after trimming; the raw string may carry surrounding blanks. */
const rawName = Type.String({ minLength: 1, maxLength: 200 });

/** Strategy ids: `stg_` + 22 base58 characters. */
export const STRATEGY_ID_RE = new RegExp(STRATEGY_ID_PATTERN);
/** Strategies one owner may hold (SPEC 7.10). */
export const MAX_STRATEGIES_PER_OWNER = 100;
/** Longest strategy name, after trimming. */
export const MAX_STRATEGY_NAME = 80;

/** A strategy stops on its DSL's exits, or while its owner's subscription has lapsed (resumed on renewal). */
const stopReason = literals(['stop_loss_streak', 'take_profit', 'session_stop_loss', 'subscription_expired']);
export type StopReason = Static<typeof stopReason>;
const stoppedReason = nullable(stopReason);

const equityPoint = Type.Object({ round: roundId, balanceLamports: lamports }, { additionalProperties: false });
export type ForwardEquityPoint = Static<typeof equityPoint>;
const equityCurve = Type.Array(equityPoint);

const strategyProperties = {
  id: strategyId,
  owner: Type.String({ minLength: 32, maxLength: 44 }),
  name: Type.String({ minLength: 1, maxLength: MAX_STRATEGY_NAME }),
  dsl: strategyDslSchema,
  createdAt: isoTime,
  updatedAt: isoTime,
  active: Type.Boolean(),
  stoppedReason,
  stoppedAtRoundId: nullableRoundId,
};

const strategyObject = Type.Object(strategyProperties, { additionalProperties: false });
/** A stored strategy (the seed's Strategy plus why and where its last session stopped). */
export type Strategy = Static<typeof strategyObject>;

const listStats = Type.Object({ roundsSettled: count, roundsWon: count, netProfitSol: num, roiPercent: num }, { additionalProperties: false });
/** The figures a strategy list item carries. */
export type StrategyListStats = Static<typeof listStats>;

const { owner: _owner, ...listedProperties } = strategyProperties;
const strategyListItem = Type.Object({ ...listedProperties, stats: listStats }, { additionalProperties: false });
export type StrategyListItem = Static<typeof strategyListItem>;

const leaderboardEntry = Type.Object(
  {
    rank: Type.Integer({ minimum: 1 }),
    id: strategyId,
    name: strategyProperties.name,
    ownerShort: Type.String(),
    roiPercent: num,
    roundsSettled: count,
  },
  { additionalProperties: false },
);
export type LeaderboardEntry = Static<typeof leaderboardEntry>;

export const strategyCreateBodySchema = Type.Object(
  { name: rawName, dsl: strategyDslSchema },
  {
    $id: 'StrategyCreateBody',
    additionalProperties: false,
    description: 'name: 1..80 characters after trimming; dsl: a Strategy DSL (normalized; errors name JSON paths under /dsl).',
  },
);
/** POST /lab/strategies body. */
export type StrategyCreateBody = Static<typeof strategyCreateBodySchema>;

export const strategyUpdateBodySchema = Type.Object(
  { name: Type.Optional(rawName), active: Type.Optional(Type.Boolean()) },
  {
    $id: 'StrategyUpdateBody',
    additionalProperties: false,
    description:
      'Only name and active. active=true on an inactive strategy starts a new forward session; active=false ends the session. An empty object changes nothing and answers 200 with the strategy as it is.',
  },
);
/** PATCH /lab/strategies/{id} body: only these two fields. */
export type StrategyUpdateBody = Static<typeof strategyUpdateBodySchema>;

export const strategyOwnerRequestSchema = Type.Object({ subscriberId }, { $id: 'StrategyOwnerRequest', additionalProperties: false });
export type StrategyOwnerRequest = Static<typeof strategyOwnerRequestSchema>;

export const strategyCreateRequestSchema = Type.Object(
  { subscriberId, ...strategyCreateBodySchema.properties },
  { $id: 'StrategyCreateRequest', additionalProperties: false },
);
export type StrategyCreateRequest = Static<typeof strategyCreateRequestSchema>;

export const strategyIdRequestSchema = Type.Object({ subscriberId, id: strategyId }, { $id: 'StrategyIdRequest', additionalProperties: false });
export type StrategyIdRequest = Static<typeof strategyIdRequestSchema>;

export const strategyUpdateRequestSchema = Type.Object(
  { subscriberId, id: strategyId, ...strategyUpdateBodySchema.properties },
  { $id: 'StrategyUpdateRequest', additionalProperties: false },
);
export type StrategyUpdateRequest = Static<typeof strategyUpdateRequestSchema>;

export const strategyReplySchema = Type.Object({ strategy: strategyObject }, { $id: 'StrategyReply', additionalProperties: false });
export type StrategyReply = Static<typeof strategyReplySchema>;

export const strategyDetailReplySchema = Type.Object(
  { strategy: strategyObject, predictionCount: count },
  { $id: 'StrategyDetailReply', additionalProperties: false },
);
export type StrategyDetailReply = Static<typeof strategyDetailReplySchema>;

export const strategyListReplySchema = Type.Object(
  {
    count,
    strategies: Type.Array(strategyListItem),
  },
  { $id: 'StrategyListReply', additionalProperties: false },
);
export type StrategyListReply = Static<typeof strategyListReplySchema>;

export const strategyDeleteReplySchema = Type.Object({ ok: Type.Literal(true) }, { $id: 'StrategyDeleteReply', additionalProperties: false });
export type StrategyDeleteReply = Static<typeof strategyDeleteReplySchema>;

export const forwardStatsSchema = Type.Object(
  {
    strategyId: strategyId,
    active: Type.Boolean(),
    roundsObserved: count,
    roundsSettled: count,
    roundsBet: count,
    roundsWon: count,
    squaresBet: count,
    squaresWon: count,
    netProfitLamports: lamports,
    netProfitSol: num,
    oreEarned: described(
      oreAmountSchema,
      'ORE earned on rounds settled under the `returns` payout rule (SPEC 7.7), in base units (1 ORE = 1e11), as a decimal string since a sum may pass 2^53; "0" when none. With our stake S_w on the winning square (D_w deployed by others): floor(R*S_w/(D_w+S_w)) of the round\'s ORE reward R when the round was split, else all of R when the top-miner draw reverse_bits(rng) % (D_w+S_w) >= D_w lands on our stake (placed last), plus floor(M*S_w/(D_w+S_w)) of the motherlode M. Its value, floor(ore * productionCost / 1e11) lamports at the production cost recorded with each round (0 when unknown), is included in netProfitLamports.',
    ),
    solReturnedNetLamports: described(
      lamports,
      "The SOL-only part of netProfitLamports: SOL paid back (stakes back less fees per square under `returns`; the winners' payout under `parimutuel`) less stakes and transaction fees, without the value of the ORE earned. Equals netProfitLamports when no ORE was earned.",
    ),
    totalStakeLamports: lamports,
    totalStakeSol: num,
    roiPercent: num,
    winRate: fraction,
    perSquareWinRate: fraction,
    maxDrawdownSol: Type.Number({ minimum: 0 }),
    minWalletSol: Type.Number({ maximum: 0 }),
    maxStreak: count,
    equityCurve,
    pendingCount: count,
    lateCount: count,
    sessionStartRoundId: nullableRoundId,
    lastSettledRoundId: nullableRoundId,
    stoppedReason,
    stoppedAtRoundId: nullableRoundId,
  },
  { $id: 'ForwardStats', additionalProperties: false },
);
/** GET /lab/strategies/{id}/forward: the seed's Forward-test stats plus SPEC 7.10's counts. */
export type ForwardStats = Static<typeof forwardStatsSchema>;

export const leaderboardRequestSchema = Type.Object({}, { $id: 'LeaderboardRequest', additionalProperties: false });

export const leaderboardSchema = Type.Object(
  {
    generatedAt: isoTime,
    minRoundsToQualify: count,
    count,
    entries: Type.Array(leaderboardEntry),
  },
  { $id: 'Leaderboard', additionalProperties: false },
);
/** GET /lab/leaderboard. */
export type Leaderboard = Static<typeof leaderboardSchema>;

export const leaderboardEntryRequestSchema = Type.Object({ id: strategyId }, { $id: 'LeaderboardEntryRequest', additionalProperties: false });
export type LeaderboardEntryRequest = Static<typeof leaderboardEntryRequestSchema>;

export const leaderboardDetailSchema = Type.Object(
  {
    strategy: Type.Object(
      {
        id: strategyId,
        name: strategyProperties.name,
        ownerShort: Type.String(),
        dsl: strategyDslSchema,
        createdAt: isoTime,
      },
      { additionalProperties: false },
    ),
    forwardTest: Type.Object(
      { rank: Type.Integer({ minimum: 1 }), roundsSettled: count, netProfitSol: num, roiPercent: num, equityCurve },
      { additionalProperties: false },
    ),
  },
  { $id: 'LeaderboardDetail', additionalProperties: false },
);
/** GET /lab/leaderboard/{id}. */
export type LeaderboardDetail = Static<typeof leaderboardDetailSchema>;

/** Why a strategy bet or sat a round out (@gridlab/strategy's DecisionReason). */
const decisionReason = literals(['bet', 'voided', 'stopped', 'cooldown', 'no_squares', 'filtered', 'zero_stakes', 'bankroll_depleted']);

export const forwardDecisionSchema = Type.Object(
  {
    strategyId,
    roundId,
    decision: Type.Object(
      {
        bet: Type.Boolean(),
        reason: decisionReason,
        squares: Type.Array(Type.Integer({ minimum: 0, maximum: 24 })),
        stakesLamports: Type.Array(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), { description: 'One stake per square in `squares`' }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ForwardDecision', additionalProperties: false, description: "A strategy's decision for the round the board has open, as its forward test records it: made as soon as the round before it settles." },
);
/** lab.forward.decided: one strategy's recorded decision. */
export type ForwardDecision = Static<typeof forwardDecisionSchema>;
