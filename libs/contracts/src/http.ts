import { Type, literals, nullable, type Static } from './kit';
import { analyticsSchema, backtestResultSchema } from './lab';
import { liveSnapshotSchema, logEventSchema, payoutRuleSchema, roundSchema } from './schemas';

// The HTTP API's own response shapes: those that exist only at the gateway. The shapes it
// shares with the bus (rounds, the live snapshot, events, billing and the Strategy Lab)
// are the bus's own schemas.

const square = Type.Integer({ minimum: 0, maximum: 24 });
const nullableId = nullable(Type.Integer());
const isoTime = Type.String({ format: 'date-time' });

export const problemSchema = Type.Object(
  {
    type: Type.Literal('about:blank'),
    title: Type.String(),
    status: Type.Integer(),
    code: Type.String({
      description:
        'Stable codes: invalid_request, missing_api_key, invalid_api_key, subscription_expired, not_found, round_not_found, payload_too_large, rate_limited, service_unavailable, chain_unavailable, timeout, internal_error (and, with their releases, nonce_consumed, tx_already_used, payment_not_confirmed, strategy_limit_reached, nonce_expired, payment_invalid, signature_invalid).',
    }),
    detail: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', additionalProperties: false },
);
export type Problem = Static<typeof problemSchema>;

export const roundWithNeighboursSchema = Type.Object(
  { ...roundSchema.properties, prevId: nullableId, nextId: nullableId },
  { $id: 'RoundWithNeighbours', additionalProperties: false, description: 'A round with the ids of the stored rounds before and after it.' },
);
export type RoundWithNeighbours = Static<typeof roundWithNeighboursSchema>;

export const roundListSchema = Type.Object(
  { count: Type.Integer(), rounds: Type.Array(Type.Ref(roundSchema)) },
  { $id: 'RoundList', additionalProperties: false },
);
export type RoundList = Static<typeof roundListSchema>;

export const dumpPageSchema = Type.Object(
  {
    count: Type.Integer(),
    from: Type.Integer(),
    to: Type.Integer(),
    hasMore: Type.Boolean(),
    nextFrom: nullableId,
    rounds: Type.Array(Type.Ref(roundSchema)),
  },
  { $id: 'DumpPage', additionalProperties: false },
);
export type DumpPage = Static<typeof dumpPageSchema>;

export const liveEvSchema = Type.Object(
  {
    roundId: Type.Integer(),
    status: liveSnapshotSchema.properties.status,
    payoutRule: payoutRuleSchema,
    stakeLamports: Type.Integer({ minimum: 1 }),
    orePriceLamports: Type.Integer({ minimum: 0 }),
    orePriceSource: literals(['caller', 'productionCost', 'none'], {
      description: "where the ORE price came from: the query, the board's production cost, or none (ORE valued at 0)",
    }),
    oreReward: Type.Integer({ minimum: 0, description: "ORE base units the winning square's miners take" }),
    motherlodePool: nullable(Type.Integer({ minimum: 0, description: 'ORE base units in the motherlode pool; null while not read (counted as 0)' })),
    squares: Type.Array(
      Type.Object({
        square: square,
        deployedLamports: Type.Integer({ minimum: 0, description: 'on the square now, before the stake' }),
        evLamports: Type.Number({
          description: 'expected lamports won (positive) or lost: SOL back less the stake, plus the expected ORE at the price; to a thousandth',
        }),
        evPerSol: Type.Number({ description: 'evLamports per lamport staked, to a millionth' }),
        expectedSolBackLamports: Type.Number({ minimum: 0, description: 'the stake included' }),
        expectedOre: Type.Number({ minimum: 0, description: 'ORE base units expected' }),
        split: nullable(
          Type.Boolean({
            description:
              'true: the prize would be split pro rata if the square wins; false: one top miner takes it; null: the round decides by its randomness',
          }),
        ),
      }),
      { minItems: 25, maxItems: 25 },
    ),
    best: Type.Array(square, {
      description: 'the k best squares for this stake, best first (ties: the lower square)',
    }),
    updatedAt: Type.String({ format: 'date-time', description: 'when the indexer built the snapshot this is figured on' }),
    stale: Type.Boolean(),
  },
  { $id: 'LiveEv', additionalProperties: false },
);
export type LiveEv = Static<typeof liveEvSchema>;

export const liveViewSchema = Type.Object(
  {
    ...liveSnapshotSchema.properties,
    stale: Type.Boolean({ description: 'true when no snapshot has arrived for longer than the live-feed threshold: the round may not be current' }),
  },
  { $id: 'LiveView', additionalProperties: false, description: 'A LiveSnapshot as served by /live and /stream, with its freshness.' },
);
export type LiveView = Static<typeof liveViewSchema>;

export const ruleStatsSchema = Type.Object(
  {
    rounds: Type.Integer({ minimum: 0 }),
    deployedSol: Type.Number({
      description: "SOL deployed in those rounds whose winning square's stake is known (every round but the few partly known rounds that lack it)",
    }),
    returnedSol: Type.Number({ description: 'SOL paid back to miners (as in effectiveHouseEdge), over the same rounds as deployedSol' }),
    effectiveHouseEdge: nullable(Type.Number({ description: '1 - returnedSol / deployedSol; null without rounds' })),
    oreRewarded: Type.Number({ description: 'whole ORE rewarded: round rewards plus motherlodes (952-byte rounds)' }),
    oreValueSol: Type.Number({ description: "that ORE valued at each round's recorded production cost" }),
    effectiveHouseEdgeWithOre: nullable(Type.Number({ description: '1 - (returnedSol + oreValueSol) / deployedSol; null without rounds' })),
  },
  { $id: 'RuleStats', additionalProperties: false, description: 'Figures of the non-voided rounds settled under one payout rule.' },
);
export type RuleStats = Static<typeof ruleStatsSchema>;

export const statsSchema = Type.Object(
  {
    roundsIndexed: Type.Integer(),
    firstRoundId: nullableId,
    lastRoundId: nullableId,
    totalDeployedSol: Type.Number(),
    totalWinningsSol: Type.Number(),
    effectiveHouseEdge: nullable(
      Type.Number({
        description:
          "1 - SOL paid back to miners / SOL deployed, over non-voided rounds of both rules (parimutuel: the winners' stake back less 1% plus totalWinnings; returns: totalWinnings). SOL only: see byPayoutRule for each rule and the ORE prize.",
      }),
    ),
    byPayoutRule: Type.Object({ parimutuel: Type.Ref(ruleStatsSchema), returns: Type.Ref(ruleStatsSchema) }),
    chiSquared: Type.Object({
      statistic: Type.Number(),
      degreesOfFreedom: Type.Literal(24),
      pValue: Type.Number({ minimum: 0, maximum: 1 }),
      sampleSize: Type.Integer(),
    }),
    perGrid: Type.Array(
      Type.Object({
        square: square,
        hits: Type.Integer(),
        hitRate: Type.Number(),
        expectedHits: Type.Number(),
        deployedSol: Type.Number({ description: 'SOL deployed on the square over every round where it is known (a partly known round may not show it)' }),
        currentDrought: Type.Integer(),
        maxDrought: Type.Integer(),
      }),
      { minItems: 25, maxItems: 25 },
    ),
    updatedAt: isoTime,
  },
  { $id: 'Stats', additionalProperties: false },
);
export type Stats = Static<typeof statsSchema>;

export const gridSchema = Type.Object(
  {
    square: square,
    row: Type.Integer({ minimum: 0, maximum: 4 }),
    column: Type.Integer({ minimum: 0, maximum: 4 }),
    hits: Type.Integer(),
    rounds: Type.Integer({ description: 'non-voided rounds: the sample the rates are computed over' }),
    hitRate: Type.Number(),
    expectedRate: Type.Literal(0.04),
    currentDrought: Type.Integer(),
    maxDrought: Type.Integer(),
    avgDrought: Type.Number({ description: "mean length of the square's droughts (the runs of rounds between its wins, the current one included)" }),
    lastHitRoundId: nullableId,
    deployedSol: Type.Number({ description: 'SOL deployed on the square over every round where it is known (a partly known round may not show it)' }),
    series: Type.Array(Type.Unsafe<0 | 1>({ enum: [0, 1] }), {
    description: '1 where the square won, 0 elsewhere, oldest to newest, over the latest non-voided rounds',
  }),
    seriesFromRoundId: nullableId,
    seriesToRoundId: nullableId,
  },
  { $id: 'Grid', additionalProperties: false },
);
export type Grid = Static<typeof gridSchema>;

export const eventPageSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    lastId: Type.Integer({ minimum: 0, description: 'id of the last returned event, or since when none' }),
    events: Type.Array(Type.Ref(logEventSchema)),
  },
  { $id: 'EventPage', additionalProperties: false },
);
export type EventPage = Static<typeof eventPageSchema>;

export const backtestResponseSchema = Type.Object(
  { result: Type.Ref(backtestResultSchema) },
  { $id: 'BacktestResponse', additionalProperties: false },
);
export type BacktestResponse = Static<typeof backtestResponseSchema>;

export const analyticsResponseSchema = Type.Object(
  { analytics: Type.Ref(analyticsSchema) },
  { $id: 'AnalyticsResponse', additionalProperties: false },
);
export type AnalyticsResponse = Static<typeof analyticsResponseSchema>;

// The dashboard's session endpoints (/api/live/session, /api/live/config): for the page
// at PUBLIC_ORIGIN only, never for API clients.

const wallet = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' });

export const sessionStartRequestSchema = Type.Union(
  [
    Type.Object({ apiKey: Type.String({ description: 'an API key, checked as a Bearer request would be (same failure limits); never echoed nor stored in the cookie' }) }),
    Type.Object({
      wallet,
      message: Type.String({ minLength: 1, description: 'the Sign-In With Solana message POST /api/live/session/challenge gave for this wallet' }),
      signatureBase64: Type.String({ minLength: 1, description: "the wallet's ed25519 signature of message, base64" }),
    }),
  ],
  { $id: 'SessionStartRequest', description: 'Sign in with an API key, or with a wallet signature of a challenge (`apiKey` wins when both are sent).' },
);
export type SessionStartRequest = Static<typeof sessionStartRequestSchema>;

export const sessionChallengeRequestSchema = Type.Object({ wallet }, { $id: 'SessionChallengeRequest' });
export type SessionChallengeRequest = Static<typeof sessionChallengeRequestSchema>;

export const sessionChallengeSchema = Type.Object(
  { message: Type.String({ description: 'the Sign-In With Solana message to sign: the site (PUBLIC_ORIGIN) as domain and URI, the wallet, a nonce' }), expiresAt: isoTime },
  { $id: 'SessionChallenge', additionalProperties: false },
);
export type SessionChallenge = Static<typeof sessionChallengeSchema>;

export const sessionInfoSchema = Type.Object(
  {
    via: literals(['key', 'wallet'], { description: 'how the browser signed in' }),
    wallet: nullable(Type.String({ description: 'the wallet that signed in; null for a key sign-in' })),
    subscriberId: Type.String(),
    paidUntil: Type.String({ format: 'date-time', description: "end of the key's paid period" }),
    expiresAt: Type.String({ format: 'date-time', description: 'when the session ends: SESSION_TTL_S after sign-in, or the end of the paid period if sooner' }),
  },
  { $id: 'SessionInfo', additionalProperties: false, description: 'A dashboard session (the key itself is never shown).' },
);
export type SessionInfo = Static<typeof sessionInfoSchema>;

export const dashboardConfigSchema = Type.Object(
  {
    rpcUrl: nullable(Type.String({ description: 'the RPC a wallet payment goes through (PUBLIC_RPC_URL); null: Solana Pay only' })),
    publicOrigin: Type.String({ description: 'the API\'s public origin (PUBLIC_ORIGIN): the domain its signed subscribe messages name' }),
  },
  { $id: 'DashboardConfig', additionalProperties: false, description: "The dashboard page's settings." },
);
export type DashboardConfig = Static<typeof dashboardConfigSchema>;
