import { Type, described, literals, nullable, type Static } from './kit';
import { payoutRuleSchema } from './schemas';

// Every miner's side of a round: what a wallet deployed, what came back and what the fees
// took, as the program's deploy and checkpoint compute it (docs/decisions.md, "Every
// miner's side of a round"). Lamports and ORE base units are integers; null where the
// chain does not prove the figure.

const MAX = Number.MAX_SAFE_INTEGER;
const lamports = Type.Integer({ minimum: 0, maximum: MAX });
const maybe = (description: string) => described(nullable(lamports), description);
/** A signed figure (net results). */
const signed = Type.Integer({ minimum: -MAX, maximum: MAX });
const address = Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'base58 public key' });
const square = Type.Integer({ minimum: 0, maximum: 24 });

export const minerRoundSchema = Type.Object(
  {
    roundId: Type.Integer({ minimum: 0 }),
    address: described(address, "the miner: the deploys' authority"),
    settledAt: Type.String({ format: 'date-time' }),
    payoutRule: payoutRuleSchema,
    squares: described(nullable(Type.Array(square)), 'squares it took, ascending (the program skips a square the miner already held this round); null where the chain does not show them'),
    amounts: described(nullable(Type.Array(lamports)), 'lamports it put on each of `squares`, in the same order'),
    deployed: maybe('lamports it staked in all'),
    deploys: described(Type.Integer({ minimum: 1 }), 'deploy instructions of the round that were its'),
    signer: described(address, 'who signed its first deploy: the wallet, or an automation\'s executor'),
    automated: described(Type.Boolean(), 'an automation deployed for it (its executor signed, or its Automation account paid)'),
    automationStrategy: described(nullable(Type.Integer({ minimum: 0 })), "the automation's strategy as the DeployEvent logged it (0 Random, 1 Preferred, 2 Discretionary, 3 DiscretionaryBps); null when manual or not logged"),
    slotsLeft: described(Type.Integer(), "slots from its first deploy to the round's end"),
    slotsLeftLast: described(Type.Integer(), 'slots from its last deploy to the end'),
    solBack: maybe('lamports its checkpoint pays back (a voided round: its whole stake)'),
    oreTopMiner: maybe('ORE base units of the top-miner reward, when the draw landed in its range'),
    oreSplit: maybe('ORE base units of a split reward, floor(reward * x / T)'),
    oreMotherlode: maybe('ORE base units of its motherlode share, floor(motherlode * x / T)'),
    topMiner: described(nullable(Type.Boolean()), "the top-miner draw (`reverse_bits(rng) % deployed[w]`) landed in its cumulative range on the winning square"),
    heldWinningSquare: described(nullable(Type.Boolean()), 'it had a stake on the winning square'),
    adminFee: maybe('lamports of its stakes the admin fee took'),
    protocolFee: maybe('lamports of its stakes the protocol fee took (`returns`)'),
    networkFee: maybe('base network fees (5,000 lamports a signature) of the transactions that carried its deploys and that it paid'),
    priorityFee: maybe('priority fees of those transactions'),
    executorFee: maybe("lamports its Automation paid the executor (the strategy's fee), 0 for a manual or self-executed deploy"),
    checkpointDeposit: maybe('lamports deposited into its Miner account for the checkpoint (10,000 when the account held none; refunded by its own checkpoint, paid to a bot that checkpoints for it)'),
    net: described(nullable(signed), 'solBack - deployed - networkFee - priorityFee - executorFee (the deposit is returned, ORE is apart); null when a term is'),
  },
  { $id: 'MinerRound', additionalProperties: false, description: "One wallet's side of one settled round." },
);
export type MinerRound = Static<typeof minerRoundSchema>;

const slotsRange = Type.Object(
  { min: Type.Integer({ minimum: 0 }), max: nullable(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false, description: 'the bucket of slots left holding the median deploy (max null: the open-ended last bucket)' },
);

export const minerWindowSchema = Type.Object(
  {
    rounds: Type.Integer({ minimum: 0 }),
    deploys: Type.Integer({ minimum: 0 }),
    deployed: lamports,
    solBack: lamports,
    adminFee: lamports,
    protocolFee: lamports,
    networkFee: lamports,
    priorityFee: lamports,
    executorFee: lamports,
    checkpointDeposits: lamports,
    net: described(signed, 'solBack - deployed - network, priority and executor fees'),
    oreTopMiner: lamports,
    oreSplit: lamports,
    oreMotherlode: lamports,
    ore: described(lamports, 'ORE base units won, all sources'),
    oreRefiningFee: described(lamports, "what the program's 10% refining fee takes of `ore` when it is claimed (floor(ore / 10))"),
    oreValue: described(signed, 'lamports: each round\'s ORE at the price of its day (the operator\'s price series, else the round\'s production cost; unpriced ORE counts 0)'),
    netWithOre: described(signed, 'net + oreValue - the refining fee at the same prices'),
    wins: described(Type.Integer({ minimum: 0 }), 'rounds in which it held the winning square'),
    winRate: nullable(Type.Number({ minimum: 0, maximum: 1 })),
    topMinerWins: Type.Integer({ minimum: 0 }),
    motherlodeHits: Type.Integer({ minimum: 0 }),
    medianSlotsLeft: nullable(slotsRange),
    firstRound: nullable(Type.Integer({ minimum: 0 })),
    lastRound: nullable(Type.Integer({ minimum: 0 })),
    unknownRounds: described(Type.Integer({ minimum: 0 }), 'rounds whose stake or outcome the chain does not prove: counted in rounds, left out of every sum'),
  },
  { $id: 'MinerWindow', additionalProperties: false, description: "A wallet's figures over one window." },
);
export type MinerWindow = Static<typeof minerWindowSchema>;

export const minerSummarySchema = Type.Object(
  {
    address,
    all: Type.Ref(minerWindowSchema),
    '24h': described(Type.Ref(minerWindowSchema), 'the last 24 whole hours and this one'),
    '7d': described(Type.Ref(minerWindowSchema), 'the last 7 UTC days, today included'),
    '30d': described(Type.Ref(minerWindowSchema), 'the last 30 UTC days, today included'),
    claimable: described(
      nullable(Type.Object({ sol: lamports, ore: lamports, refinedOre: lamports, checkpointedRound: Type.Integer({ minimum: 0 }) }, { additionalProperties: false })),
      "from its Miner account now: `rewards_sol`, `rewards_ore` and `refined_ore` (claiming the ORE takes the 10% refining fee from `ore`), and the last round it checkpointed; null when it has no Miner account or the chain did not answer",
    ),
  },
  { $id: 'MinerSummary', additionalProperties: false },
);
export type MinerSummary = Static<typeof minerSummarySchema>;

export const minerRoundListSchema = Type.Object(
  {
    count: Type.Integer({ minimum: 0 }),
    rounds: Type.Array(Type.Ref(minerRoundSchema)),
    nextBefore: described(nullable(Type.Integer({ minimum: 0 })), 'pass as `before` for the next page; null on the last'),
  },
  { $id: 'MinerRoundList', additionalProperties: false },
);
export type MinerRoundList = Static<typeof minerRoundListSchema>;

export const MINER_BUCKETS = ['hour', 'day'] as const;
export type MinerBucket = (typeof MINER_BUCKETS)[number];

export const minerPointSchema = Type.Object(
  {
    start: Type.String({ format: 'date-time' }),
    rounds: Type.Integer({ minimum: 0 }),
    deployed: lamports,
    solBack: lamports,
    fees: described(lamports, 'admin, protocol, network, priority and executor fees'),
    net: signed,
    ore: lamports,
    cumulativeNet: described(signed, 'net summed from the first point of the series'),
    cumulativeOre: lamports,
  },
  { additionalProperties: false },
);

export const minerPerformanceSchema = Type.Object(
  {
    address,
    bucket: literals(MINER_BUCKETS),
    points: Type.Array(minerPointSchema, { description: 'oldest first; buckets in which it did not play are left out' }),
  },
  { $id: 'MinerPerformance', additionalProperties: false },
);
export type MinerPerformance = Static<typeof minerPerformanceSchema>;

export const MINER_SORTS = ['net', 'ore', 'deployed', 'rounds'] as const;
export const MINER_WINDOWS = ['24h', '7d', '30d', 'all'] as const;
export type MinerSort = (typeof MINER_SORTS)[number];
export type MinerWindowName = (typeof MINER_WINDOWS)[number];

export const topMinersSchema = Type.Object(
  {
    window: literals(MINER_WINDOWS),
    sort: literals(MINER_SORTS),
    asOf: described(Type.String({ format: 'date-time' }), 'when the figures were summed: the lists of 24 h, 7 d and 30 d are summed by the indexer each minute, all time is read live'),
    miners: Type.Array(
      Type.Object(
        { rank: Type.Integer({ minimum: 1 }), address, rounds: Type.Integer({ minimum: 0 }), deployed: lamports, net: signed, ore: lamports },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'TopMiners', additionalProperties: false, description: 'Wallets by the figure asked for, highest first (net: SOL back less stakes, before transaction fees).' },
);
export type TopMiners = Static<typeof topMinersSchema>;

export const roundMinersSchema = Type.Object(
  {
    roundId: Type.Integer({ minimum: 0 }),
    count: Type.Integer({ minimum: 0 }),
    miners: Type.Array(Type.Ref(minerRoundSchema), { description: 'in the order of their first deploy' }),
  },
  { $id: 'RoundMiners', additionalProperties: false, description: 'Every wallet that deployed in a settled round and how each came out.' },
);
export type RoundMiners = Static<typeof roundMinersSchema>;

export const minerDeployedSchema = Type.Object(
  {
    roundId: Type.Integer({ minimum: 0 }),
    address: described(address, 'the authority it deployed for'),
    signer: address,
    signature: Type.String(),
    slot: Type.Integer({ minimum: 0 }),
    squares: described(nullable(Type.Array(square)), 'squares it took (a square the miner already held is skipped); null where not shown'),
    amount: described(nullable(lamports), 'lamports on each square'),
    automated: Type.Boolean(),
    automationStrategy: nullable(Type.Integer({ minimum: 0 })),
  },
  { $id: 'MinerDeployed', additionalProperties: false, description: 'A deploy of the live round, as its transaction shows it (finalized).' },
);
export type MinerDeployed = Static<typeof minerDeployedSchema>;
