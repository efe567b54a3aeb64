import { Type, literals } from '../kit';
import { MINER_BUCKETS, MINER_SORTS, MINER_WINDOWS, minerPerformanceSchema, minerRoundListSchema, minerSummarySchema, roundMinersSchema, topMinersSchema } from '../miners';
import { RATE_LIMIT_HEADERS, operation, problem, withDefault } from './operation';

// Every wallet's ledger, in the mining-pool convention (`/miners/<address>`,
// `/performance`): from the indexer's miner tables, one row per wallet and settled round.

const MAX_ID = Number.MAX_SAFE_INTEGER;
const addressPath = Type.Object({ address: Type.String({ pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$', description: 'the wallet (base58)' }) });
const MINER_NOT_FOUND = problem('miner_not_found: no settled round of this wallet is indexed');

export const minersOperations = {
  getMiner: operation({
    method: 'get',
    path: '/api/v1/miners/{address}',
    tags: ['miners'],
    summary: "A wallet's summary: all time, 24 h, 7 d and 30 d",
    description:
      "From rollups kept per wallet, hour and day (no scan of its rounds): rounds played, SOL staked and back, every fee by kind, net SOL, ORE by source and its value, win rate, top-miner wins, motherlode hits, the median slots left at its deploys, first and last round; and what its Miner account holds to claim now (read from the chain, cached a few seconds).",
    access: 'paid',
    cost: 1,
    parameters: { path: addressPath },
    responses: { 200: { description: 'Summary', headers: RATE_LIMIT_HEADERS, content: { 'application/json': minerSummarySchema } }, 404: MINER_NOT_FOUND },
  }),
  listMinerRounds: operation({
    method: 'get',
    path: '/api/v1/miners/{address}/rounds',
    tags: ['miners'],
    summary: "A wallet's ledger, newest first",
    description:
      'A page of `limit` rows before round `before` (exclusive), with `nextBefore` for the next. With `Accept: application/x-ndjson` (one MinerRound a line) or `text/csv` (a header line, then one row a line; squares and amounts as `;`-separated lists) the whole ledger below `before` is streamed instead, newest first: at most DUMPS_PER_KEY concurrent exports per key, as /dump.',
    access: 'paid',
    cost: 1,
    parameters: {
      path: addressPath,
      query: Type.Object({
        before: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'rounds below this id (default: all)' })),
        limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 100)),
      }),
    },
    responses: {
      200: {
        description: 'A page, or the whole ledger as NDJSON or CSV',
        content: { 'application/json': minerRoundListSchema, 'application/x-ndjson': Type.String(), 'text/csv': Type.String() },
      },
      404: MINER_NOT_FOUND,
    },
  }),
  getMinerPerformance: operation({
    method: 'get',
    path: '/api/v1/miners/{address}/performance',
    tags: ['miners'],
    summary: "A wallet's results as a time series",
    description: 'Per hour (the last 48 hours) or per UTC day (all time), oldest first, with running totals of net SOL and ORE for charts.',
    access: 'paid',
    cost: 1,
    parameters: {
      path: addressPath,
      query: Type.Object({ bucket: Type.Optional(withDefault(literals(MINER_BUCKETS), 'day')) }),
    },
    responses: { 200: { description: 'Time series', content: { 'application/json': minerPerformanceSchema } }, 404: MINER_NOT_FOUND },
  }),
  listTopMiners: operation({
    method: 'get',
    path: '/api/v1/miners',
    tags: ['miners'],
    summary: 'The top miners of a window',
    description: 'Wallets by net SOL, ORE won, SOL deployed or rounds played over the last 24 hours, 7 or 30 UTC days, or all time; from the hourly, daily and all-time rollups.',
    access: 'paid',
    cost: 1,
    parameters: {
      query: Type.Object({
        sort: Type.Optional(withDefault(literals(MINER_SORTS), 'net')),
        window: Type.Optional(withDefault(literals(MINER_WINDOWS), '24h')),
        limit: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 100 }), 25)),
      }),
    },
    responses: { 200: { description: 'Top miners', content: { 'application/json': topMinersSchema } } },
  }),
  getRoundMiners: operation({
    method: 'get',
    path: '/api/v1/rounds/{id}/miners',
    tags: ['miners'],
    summary: 'Who deployed in a round and how each came out',
    access: 'paid',
    cost: 1,
    parameters: { path: Type.Object({ id: Type.Integer({ minimum: 0, maximum: MAX_ID }) }) },
    responses: {
      200: { description: 'The round\'s miners', content: { 'application/json': roundMinersSchema } },
      404: problem('round_not_found: the round is not indexed, or its miners are not yet'),
    },
  }),
  streamMiner: operation({
    method: 'get',
    path: '/api/v1/miners/{address}/stream',
    tags: ['miners'],
    summary: "Server-sent events of a wallet's deploys and settled rounds",
    description:
      "`event: deploy` (`data: <MinerDeployed JSON>`) for each of its deploys in the live round, as the indexer reads them from their transactions; `event: round` (`id: <roundId>`, `data: <MinerRound JSON>`) when a round it played settles. With `Last-Event-ID` (a round id) the settled rounds after it are sent first. `: ping` every 15 s. Counted, capped and ended like /stream (429 too_many_streams, too_many_streams_from_address).",
    access: 'paid',
    cost: 1,
    parameters: {
      path: addressPath,
      header: Type.Object({ 'Last-Event-ID': Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID })) }),
    },
    responses: { 200: { description: 'Event stream', content: { 'text/event-stream': Type.String() } } },
  }),
} as const;
