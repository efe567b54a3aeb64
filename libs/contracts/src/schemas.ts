import { Type, described, literals, nullable, type Static } from './kit';

// Rounds, the live board and the event log: on NATS (grid.round.*, the live bucket,
// events.appended) and, as they are, in the HTTP API.

const MAX = Number.MAX_SAFE_INTEGER;
const lamports = Type.Integer({ minimum: 0, maximum: MAX });
const nullableLamports = nullable(lamports);
const squares = Type.Array(lamports, { minItems: 25, maxItems: 25 });
const partlyKnownSquares = Type.Array(nullableLamports, { minItems: 25, maxItems: 25 });
const square = Type.Integer({ minimum: 0, maximum: 24 });
const count = Type.Integer({ minimum: 0 });
const isoTime = Type.String({ format: 'date-time' });

export const payoutRuleSchema = literals(['parimutuel', 'returns'], {
  description: 'How a round paid its miners (SPEC 3): SOL shared by the winning square, or returned per square.',
});
/** How a round paid its miners (SPEC 3): SOL shared by the winners, or returned per square. */
export type PayoutRule = Static<typeof payoutRuleSchema>;

const roundSourceSchema = literals(['account', 'transactions', 'transactions_partial', 'import'], {
  description:
    "Where the round was read. `account`: its Round account on chain (settledAt is when Gridlab saw it settle). `transactions`: its account had been closed, so it was rebuilt from the program's events in its transactions (the ResetEvent's totals, the deploys summed per square, the reset's logged slot hash) and checked against the ResetEvent; settledAt is the reset's block time, productionCost is null, and totalMiners counts the distinct miners that deployed. `transactions_partial`: rebuilt from its transactions like `transactions`, but partly known: some of its deploys were made by an automation before 2025-12-30, when neither the instruction nor the program's event showed the squares the automation chose, so the per-square `deployed` and `count` are null except where the ResetEvent proves them (the winning square's stake and miners, usually), and `totalMiners` is null when the deploys do not show it; the totals, the winning square and the outcome are exact. `import`: loaded from a history file that did not say where its rounds came from. The program never writes the per-square `mass`, so no round carries it.",
});
/** Where a stored round came from: its account, its transactions (the account was closed; SPEC 3.2), or an imported file. */
export type RoundSource = Static<typeof roundSourceSchema>;

export const roundSchema = Type.Object(
  {
    id: lamports,
    deployed: described(partlyKnownSquares, 'Lamports per square; null where not known (only in a `transactions_partial` round)'),
    count: described(partlyKnownSquares, 'Miners per square; null where not known (only in a `transactions_partial` round)'),
    winningSquare: described(nullable(square), 'null when the round was voided (every stake refunded, under every rule)'),
    totalDeployed: described(
      lamports,
      'Lamports deployed. A voided 952-byte round has its `deployed` zeroed on chain; its totalDeployed is then the refund.',
    ),
    totalWinnings: described(
      lamports,
      "parimutuel: the SOL (after fees) of the losing squares, shared pro rata by the winning square's miners, who also get their own stake back less 1%. returns: the SOL returned to miners on every square (the program's total_returned_sol): each square's SOL less its admin fee, and on losing squares less the protocol fee too. A voided 952-byte round: the refund.",
    ),
    totalVaulted: described(lamports, 'parimutuel: 10% of the losing SOL after the admin fee. returns: the protocol fees of the losing squares.'),
    totalMiners: described(nullableLamports, 'Distinct miners of the round; null where not known (only in a `transactions_partial` round)'),
    motherlode: described(lamports, 'ORE base units paid out of the motherlode this round (0 when it was not hit)'),
    topMinerReward: described(
      lamports,
      "ORE base units of the top-miner reward (952-byte rounds: the sum of the account's rewards, equal to oreReward)",
    ),
    slotHash: Type.String({ pattern: '^[0-9a-f]{64}$' }),
    settledAt: isoTime,
    payoutRule: described(
      payoutRuleSchema,
      'The rule that settled the round, decided from its own totals (see docs/decisions.md "Payout rules"); a voided or empty round takes the rule of the round before it.',
    ),
    // Nullable by a type list, not anyOf: validation runs on every imported round.
    oreReward: described(
      nullableLamports,
      '952-byte rounds: the ORE reward (base units; 1 ORE = 10^11), to the top miner or split pro rata on the winning square; null for v3 rounds',
    ),
    topMiner: described(
      nullable(Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' })),
      '952-byte rounds: the address that won the ORE reward, or SpLiT11111111111111111111111111111111111112 when it was split; null for v3 rounds',
    ),
    split: described(
      nullable(Type.Boolean()),
      "952-byte rounds: true when the ORE reward was split pro rata among the winning square's miners; null for v3 rounds",
    ),
    productionCost: described(
      nullableLamports,
      "952-byte rounds: the board's production cost (an EMA over 20 rounds, lamports per whole ORE) when Gridlab saw the round settle; a round found on chain by a backfill carries the board's value at that time, and a round rebuilt from its transactions carries null (the chain keeps no past value); null for v3 rounds",
    ),
    source: roundSourceSchema,
    motherlodePool: described(
      nullableLamports,
      "ORE base units in the motherlode pool the round played for (the Treasury's `motherlode` while the round was live; a round that hit the motherlode paid out exactly this). null where Gridlab did not watch the round live: rounds read back after an absence or rebuilt from transactions (the program logs only the payout), and imported rounds that did not carry it.",
    ),
  },
  {
    $id: 'Round',
    additionalProperties: false,
    description:
      "A settled round. Lamports and ORE base units (11 decimals) are integers. The seed's fields keep their meaning under both payout rules; `payoutRule` says which settled the round: `parimutuel` (ORE v3 rounds, and 952-byte rounds until 2026-08-12) or `returns` (since 2026-08-12, when the program stopped moving SOL between squares). The ORE fields (`oreReward`, `topMiner`, `split`, `productionCost`) are set for 952-byte rounds (since 2026-06-25) and null for v3 rounds, which do not record them. `source` says where Gridlab read the round: its account, or its transactions when the account had been closed (the program lets anyone close a round about a day after it ended).",
  },
);
export type Round = Static<typeof roundSchema>;
/** A round whose every figure is known: every source but `transactions_partial`. */
export type KnownRound = Omit<Round, 'deployed' | 'count' | 'totalMiners'> & { deployed: number[]; count: number[]; totalMiners: number };
/** Whether every per-square figure of `round` is known (what replays, EV and per-square statistics need). */
export function isFullyKnown(round: Round): round is KnownRound {
  return round.source !== 'transactions_partial';
}

const liveStatusSchema = literals(['waiting', 'active', 'intermission']);
export type LiveStatus = Static<typeof liveStatusSchema>;

export const liveGameSchema = Type.Object(
  {
    payoutRule: described(payoutRuleSchema, 'the rule the round pays by (that of the rounds settling now)'),
    oreReward: described(lamports, "ORE the winning square's miners take (1 ORE), split pro rata or all to one top miner drawn by stake"),
    motherlodePool: described(
      nullableLamports,
      'ORE in the motherlode pool (the Treasury account), paid pro rata on the winning square one round in 500; null while not read',
    ),
    productionCost: described(
      nullableLamports,
      "the board's production cost, lamports per whole ORE (an EMA of 20 rounds); null before 952-byte rounds",
    ),
    splitSquares: described(
      nullable(Type.Array(Type.Boolean(), { minItems: 25, maxItems: 25 })),
      'per square: true when its prize would be split pro rata if it wins, false when one top miner takes it (fixed per round, Round::distribution_mask); null while the round decides for whichever square wins, from its randomness',
    ),
    evStakeLamports: described(
      Type.Integer({ minimum: 1, maximum: MAX }),
      'the stake evPerSol is figured for (LIVE_EV_STAKE_LAMPORTS, 0.1 SOL by default)',
    ),
    evOrePriceLamports: described(lamports, 'the ORE price evPerSol assumes, lamports per whole ORE: the production cost, 0 when there is none'),
    evPerSol: described(
      Type.Array(Type.Number(), { minItems: 25, maxItems: 25 }),
      'per square: the expected result of that stake added now, per lamport staked (-0.05: 5% lost on average). See GET /live/ev for any stake and ORE price.',
    ),
  },
  {
    $id: 'LiveGame',
    additionalProperties: false,
    description:
      "Today's game on the live round: where a stake buys the most ORE. Under the `returns` rule every square wins with probability 1/25 and the SOL side loses about the same on every square, so what differs is the ORE: the prize (and, one round in 500, the motherlode pool) goes to the winning square's miners in proportion to their stake. ORE amounts are base units (1 ORE = 10^11). Absent while the indexer runs a version that does not publish it.",
  },
);
export type LiveGame = Static<typeof liveGameSchema>;

export const liveSnapshotSchema = Type.Object(
  {
    roundId: count,
    status: liveStatusSchema,
    deployed: squares,
    count: squares,
    totalDeployed: lamports,
    totalMiners: lamports,
    secondsLeft: described(nullable(Type.Number({ minimum: 0 })), 'null while waiting; 0 during the intermission'),
    slot: count,
    startSlot: count,
    endSlot: described(nullable(count), 'null while waiting for the first deploy'),
    prevRound: Type.Union([Type.Ref(roundSchema), Type.Null()]),
    updatedAt: isoTime,
    game: Type.Optional(Type.Ref(liveGameSchema)),
  },
  {
    $id: 'LiveSnapshot',
    additionalProperties: false,
    description: 'The live snapshot of the current round (GET /live, the SSE stream, the KV bucket).',
  },
);
export type LiveSnapshot = Static<typeof liveSnapshotSchema>;

export const roundOpenedSchema = Type.Object(
  { roundId: count, previousRoundId: described(nullable(count), 'id of the newest settled round at the time, if known'), openedAt: isoTime },
  { $id: 'RoundOpened', additionalProperties: false, description: 'The board moved to a new round: lab-forward records its predictions for it.' },
);
export type RoundOpened = Static<typeof roundOpenedSchema>;

export const keySharedSchema = Type.Object(
  {
    subscriberId: Type.String({ pattern: '^sub_[1-9A-HJ-NP-Za-km-z]{22}$' }),
    distinctAddresses: Type.Integer({ minimum: 1 }),
    windowSeconds: Type.Integer({ minimum: 1 }),
    policy: literals(['warn', 'revoke'], { description: "what the gateway's policy did: only warn (the default) or ask for revocation" }),
    detectedAt: isoTime,
  },
  {
    $id: 'KeyShared',
    additionalProperties: false,
    description: 'A key_sharing signal (SPEC 5): never the key itself, only whose it is and how widely used.',
  },
);
export type KeyShared = Static<typeof keySharedSchema>;

const solAmount = Type.Number({ minimum: 0 });

const eventHead = { id: Type.Integer({ minimum: 1, maximum: MAX }), ts: isoTime };
const closed = { additionalProperties: false } as const;
const eventBranches = [
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('drought_broken'),
      grid: square,
      drought: described(count, "non-voided settled rounds between the square's previous win and this round"),
      roundId: count,
    },
    { ...closed, description: 'The winning square had not won for at least the drought threshold of rounds.' },
  ),
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('big_round'),
      roundId: count,
      deployedSol: solAmount,
      thresholdSol: described(solAmount, 'the bar this round cleared: the multiplier setting times the recent median, in SOL'),
      multiplier: described(solAmount, 'deployedSol divided by the median of the window'),
      winningSquare: square,
      totalMiners: described(nullable(count), "the round's distinct miners; null for a partly known round that does not show them"),
    },
    { ...closed, description: "The round's deployed SOL reached the multiplier setting times the recent median." },
  ),
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('tier'),
      activeSubs: count,
      tokenNow: described(solAmount, 'monthly price at the new count'),
      direction: literals(['up', 'down']),
    },
    { ...closed, description: 'The active subscription count crossed a pricing threshold.' },
  ),
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('milestone'),
      metric: literals(['rounds', 'deployedSol']),
      value: described(count, 'the round id (metric rounds) or the multiple of the SOL step reached (deployedSol)'),
      roundId: count,
    },
    { ...closed, description: 'A round id divisible by the modulus settled, or cumulative deployed SOL passed a step.' },
  ),
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('subscription'),
      action: literals(['activated', 'renewed', 'expired']),
      plan: literals(['monthly', 'annual', 'grant'], { description: 'grant: an operator granted the period without a payment' }),
      activeSubs: count,
    },
    { ...closed, description: 'A subscription changed state; deliberately without the wallet key.' },
  ),
  Type.Object(
    { ...eventHead, kind: Type.Literal('streak'), grid: square, length: Type.Integer({ minimum: 3 }), roundId: count },
    { ...closed, description: 'The same square won `length` consecutive non-voided settled rounds.' },
  ),
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('motherlode'),
      roundId: count,
      winningSquare: square,
      oreAmount: described(count, 'ORE paid out of the pool, base units (1 ORE = 10^11)'),
    },
    { ...closed, description: "The round hit the motherlode: its winning square's miners shared the pool." },
  ),
  Type.Object(
    {
      ...eventHead,
      kind: Type.Literal('withdrawn'),
      eventId: described(Type.Integer({ minimum: 1, maximum: MAX }), 'id of the earlier event this one withdraws'),
      eventKind: literals(['drought_broken', 'big_round', 'milestone', 'streak', 'motherlode'], { description: 'kind of the withdrawn event' }),
      roundId: described(count, 'roundId of the withdrawn event'),
    },
    {
      ...closed,
      description:
        'A correction: rounds stored late (a history fill below rounds already derived) mean the event `eventId` no longer follows from the stored history, so it no longer holds. Its `ts` is the withdrawn event\'s. The event that holds instead, if any, is appended after it. A `kind` filter of `eventKind` returns it too.',
    },
  ),
];

export type EventKind = (typeof eventBranches)[number]['properties']['kind']['const'];
/** The kinds of the event log (SPEC 6); `streak` and `withdrawn` are accepted as filters too. */
export const EVENT_KINDS: readonly EventKind[] = eventBranches.map((branch) => branch.properties.kind.const);

/**
 * One entry of the event log as the API shows it: `{ id, ts, kind, ...fields of its kind }`.
 * `kind` picks the branch (a discriminator), so a bad event is reported against its own kind only.
 */
export const logEventSchema = Type.Unsafe<Static<(typeof eventBranches)[number]>>({
  $id: 'LogEvent',
  type: 'object',
  required: ['kind'],
  properties: { kind: literals(EVENT_KINDS) },
  discriminator: { propertyName: 'kind' },
  oneOf: eventBranches,
  description: 'One entry of the event log: `{ id, ts, kind, ...fields of its kind }` (SPEC 6).',
});
export type LogEvent = Static<typeof logEventSchema>;

/**
 * Whether `event` passes the `kind` filter of GET /events and /events/stream: its own
 * kind, or a `withdrawn` correction of an event of that kind (a reader following one
 * kind must learn that one of its events no longer holds).
 */
export function eventMatchesKind(event: LogEvent, kind: EventKind): boolean {
  return event.kind === kind || (event.kind === 'withdrawn' && event.eventKind === kind);
}
