import type { SchemaObject } from 'ajv';

// Schemas are plain JSON Schema; unit tests hold them to the TypeScript types in messages.ts.

const lamports = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER } as const;
const squares = { type: 'array', items: lamports, minItems: 25, maxItems: 25 } as const;
const isoTime = { type: 'string', format: 'date-time' } as const;

export const roundSchema: SchemaObject = {
  $id: 'urn:gridlab:round',
  type: 'object',
  additionalProperties: false,
  required: [
    'id',
    'deployed',
    'count',
    'winningSquare',
    'totalDeployed',
    'totalWinnings',
    'totalVaulted',
    'totalMiners',
    'motherlode',
    'topMinerReward',
    'slotHash',
    'settledAt',
    'payoutRule',
    'oreReward',
    'topMiner',
    'split',
    'productionCost',
    'source',
    'motherlodePool',
  ],
  properties: {
    id: { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    deployed: squares,
    count: squares,
    winningSquare: { type: ['integer', 'null'], minimum: 0, maximum: 24 },
    totalDeployed: lamports,
    totalWinnings: lamports,
    totalVaulted: lamports,
    totalMiners: lamports,
    motherlode: lamports,
    topMinerReward: lamports,
    slotHash: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    settledAt: isoTime,
    payoutRule: { type: 'string', enum: ['parimutuel', 'returns'] },
    // Nullable by a type list, not anyOf: validation runs on every imported round.
    oreReward: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    topMiner: { type: ['string', 'null'], pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$' },
    split: { type: ['boolean', 'null'] },
    productionCost: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
    source: { type: 'string', enum: ['account', 'transactions', 'import'] },
    motherlodePool: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
};

export const liveSnapshotSchema: SchemaObject = {
  $id: 'urn:gridlab:live-snapshot',
  type: 'object',
  additionalProperties: false,
  required: [
    'roundId',
    'status',
    'deployed',
    'count',
    'totalDeployed',
    'totalMiners',
    'secondsLeft',
    'slot',
    'startSlot',
    'endSlot',
    'prevRound',
    'updatedAt',
  ],
  properties: {
    roundId: { type: 'integer', minimum: 0 },
    status: { type: 'string', enum: ['waiting', 'active', 'intermission'] },
    deployed: squares,
    count: squares,
    totalDeployed: lamports,
    totalMiners: lamports,
    secondsLeft: { type: ['number', 'null'], minimum: 0 },
    slot: { type: 'integer', minimum: 0 },
    startSlot: { type: 'integer', minimum: 0 },
    endSlot: { type: ['integer', 'null'], minimum: 0 },
    prevRound: { anyOf: [{ $ref: 'urn:gridlab:round' }, { type: 'null' }] },
    updatedAt: isoTime,
    game: {
      type: 'object',
      additionalProperties: false,
      required: ['payoutRule', 'oreReward', 'motherlodePool', 'productionCost', 'splitSquares', 'evStakeLamports', 'evOrePriceLamports', 'evPerSol'],
      properties: {
        payoutRule: { type: 'string', enum: ['parimutuel', 'returns'] },
        oreReward: lamports,
        motherlodePool: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        productionCost: { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
        splitSquares: { type: ['array', 'null'], items: { type: 'boolean' }, minItems: 25, maxItems: 25 },
        evStakeLamports: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
        evOrePriceLamports: lamports,
        evPerSol: { type: 'array', items: { type: 'number' }, minItems: 25, maxItems: 25 },
      },
    },
  },
};

export const roundOpenedSchema: SchemaObject = {
  $id: 'urn:gridlab:round-opened',
  type: 'object',
  additionalProperties: false,
  required: ['roundId', 'previousRoundId', 'openedAt'],
  properties: {
    roundId: { type: 'integer', minimum: 0 },
    previousRoundId: { type: ['integer', 'null'], minimum: 0 },
    openedAt: isoTime,
  },
};

export const keySharedSchema: SchemaObject = {
  $id: 'urn:gridlab:key-shared',
  type: 'object',
  additionalProperties: false,
  required: ['subscriberId', 'distinctAddresses', 'windowSeconds', 'policy', 'detectedAt'],
  properties: {
    subscriberId: { type: 'string', pattern: '^sub_[1-9A-HJ-NP-Za-km-z]{22}$' },
    distinctAddresses: { type: 'integer', minimum: 1 },
    windowSeconds: { type: 'integer', minimum: 1 },
    policy: { type: 'string', enum: ['warn', 'revoke'] },
    detectedAt: isoTime,
  },
};

const nonNegative = { type: 'integer', minimum: 0 } as const;
const square = { type: 'integer', minimum: 0, maximum: 24 } as const;
const solAmount = { type: 'number', minimum: 0 } as const;

/** An event of the log, with the fields of each kind (SPEC 6). */
export const logEventSchema: SchemaObject = {
  $id: 'urn:gridlab:log-event',
  type: 'object',
  required: ['id', 'ts', 'kind'],
  properties: {
    id: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    ts: isoTime,
    kind: { type: 'string', enum: ['drought_broken', 'big_round', 'tier', 'milestone', 'subscription', 'streak', 'motherlode'] },
  },
  oneOf: [
    {
      additionalProperties: false,
      required: ['grid', 'drought', 'roundId'],
      properties: { id: {}, ts: {}, kind: { const: 'drought_broken' }, grid: square, drought: nonNegative, roundId: nonNegative },
    },
    {
      additionalProperties: false,
      required: ['roundId', 'deployedSol', 'thresholdSol', 'multiplier', 'winningSquare', 'totalMiners'],
      properties: {
        id: {},
        ts: {},
        kind: { const: 'big_round' },
        roundId: nonNegative,
        deployedSol: solAmount,
        thresholdSol: solAmount,
        multiplier: solAmount,
        winningSquare: square,
        totalMiners: nonNegative,
      },
    },
    {
      additionalProperties: false,
      required: ['grid', 'length', 'roundId'],
      properties: { id: {}, ts: {}, kind: { const: 'streak' }, grid: square, length: { type: 'integer', minimum: 3 }, roundId: nonNegative },
    },
    {
      additionalProperties: false,
      required: ['roundId', 'winningSquare', 'oreAmount'],
      properties: { id: {}, ts: {}, kind: { const: 'motherlode' }, roundId: nonNegative, winningSquare: square, oreAmount: nonNegative },
    },
    {
      additionalProperties: false,
      required: ['metric', 'value', 'roundId'],
      properties: { id: {}, ts: {}, kind: { const: 'milestone' }, metric: { enum: ['rounds', 'deployedSol'] }, value: nonNegative, roundId: nonNegative },
    },
    {
      additionalProperties: false,
      required: ['activeSubs', 'tokenNow', 'direction'],
      properties: { id: {}, ts: {}, kind: { const: 'tier' }, activeSubs: nonNegative, tokenNow: solAmount, direction: { enum: ['up', 'down'] } },
    },
    {
      additionalProperties: false,
      required: ['action', 'plan', 'activeSubs'],
      properties: {
        id: {},
        ts: {},
        kind: { const: 'subscription' },
        action: { enum: ['activated', 'renewed', 'expired'] },
        plan: { enum: ['monthly', 'annual', 'grant'] },
        activeSubs: nonNegative,
      },
    },
  ],
};
