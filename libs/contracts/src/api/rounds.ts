import { Type } from '../kit';
import { dumpPageSchema, gridSchema, liveEvSchema, liveViewSchema, roundListSchema, roundWithNeighboursSchema, statsSchema } from '../http';
import { RATE_LIMIT_HEADERS, UNAVAILABLE, operation, problem, withDefault } from './operation';

// The live round (from the gateway's memory), the stored rounds and their statistics, and
// the document itself.

const MAX_ID = Number.MAX_SAFE_INTEGER;
/** A stake or price at most a million SOL (stakes beyond mean nothing on a real board). */
const MAX_LAMPORTS = 1_000_000_000_000_000;
const limit = (fallback: number) => Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 10_000 }), fallback));
const eventStream = { description: 'Event stream', content: { 'text/event-stream': Type.String() } };

export const roundsOperations = {
  getLive: operation({
    method: 'get',
    path: '/api/v1/live',
    tags: ['live'],
    summary: 'The current round, from memory',
    description:
      "The latest snapshot the indexer published, with `stale` added: `true` once no snapshot has arrived for longer than the gateway's `LIVE_STALE_AFTER_S` (default 90 s, a little over one round), when the round shown may no longer be the chain's current one. The `Age` header gives the snapshot's age in whole seconds (since `updatedAt`).",
    access: 'paid',
    cost: 1,
    responses: {
      200: {
        description: 'Live snapshot',
        headers: { ...RATE_LIMIT_HEADERS, Age: { description: 'Seconds since the snapshot was built (its updatedAt), whole', schema: Type.Integer({ minimum: 0 }) } },
        content: { 'application/json': liveViewSchema },
      },
      503: UNAVAILABLE,
    },
  }),
  getLiveEv: operation({
    method: 'get',
    path: '/api/v1/live/ev',
    tags: ['live'],
    summary: 'The expected value of a stake on every square of the live round',
    description:
      "For a stake added now to each square in turn: the exact expected SOL back under the round's rule (the square wins with probability 1/25, and the rule's integer fees apply to the square's new total), the expected ORE, 1/25 · stake/(square + stake) · (prize + motherlode pool/500), and their sum in lamports with ORE valued at `orePriceLamports` (default: the board's production cost; 0 when there is none). Deploys made after this moment are not known and not counted: the figures move as the board fills. From memory, as /live.",
    access: 'paid',
    cost: 1,
    parameters: {
      query: Type.Object({
        // 0.1 SOL: a typical miner's stake per square.
        stakeLamports: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: MAX_LAMPORTS, description: 'lamports added to each square (default 0.1 SOL)' }), 100_000_000)),
        orePriceLamports: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_LAMPORTS, description: 'lamports per whole ORE (default: the production cost)' })),
        k: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 25, description: 'how many best squares to list' }), 5)),
      }),
    },
    responses: {
      200: { description: "Every square's expected value for the stake", headers: RATE_LIMIT_HEADERS, content: { 'application/json': liveEvSchema } },
      503: UNAVAILABLE,
    },
  }),
  streamLive: operation({
    method: 'get',
    path: '/api/v1/stream',
    tags: ['live'],
    summary: 'Server-sent live snapshots',
    description:
      "`event: snapshot`, `id: <roundId>-<seq>`, `data: <LiveView JSON>` (the snapshot with `stale`); the current state first; `: ping` every 15 s; slow clients receive the latest state only. At most STREAMS_PER_KEY (5) streams per key and STREAMS_PER_ADDRESS (20) per client address, /stream and /events/stream together (429 too_many_streams, too_many_streams_from_address). The stream ends at once when its key is revoked and within 30 s of the key's paidUntil; reconnecting then answers 401 or 402.",
    access: 'paid',
    cost: 1,
    responses: { 200: eventStream },
  }),
  getStats: operation({
    method: 'get',
    path: '/api/v1/stats',
    tags: ['rounds'],
    summary: 'Whole-history statistics (from stored aggregates, no scan)',
    access: 'paid',
    cost: 1,
    responses: { 200: { description: 'Statistics', content: { 'application/json': statsSchema } } },
  }),
  listRounds: operation({
    method: 'get',
    path: '/api/v1/rounds',
    tags: ['rounds'],
    summary: 'The latest rounds, newest first',
    access: 'paid',
    cost: 1,
    parameters: { query: Type.Object({ limit: limit(100) }) },
    responses: { 200: { description: 'Rounds', content: { 'application/json': roundListSchema } } },
  }),
  getRound: operation({
    method: 'get',
    path: '/api/v1/rounds/{id}',
    tags: ['rounds'],
    summary: 'One round with the ids of its nearest stored neighbours',
    access: 'paid',
    cost: 1,
    parameters: { path: Type.Object({ id: Type.Integer({ minimum: 0, maximum: MAX_ID }) }) },
    responses: {
      200: { description: 'Round', content: { 'application/json': roundWithNeighboursSchema } },
      404: problem('round_not_found'),
    },
  }),
  getGrid: operation({
    method: 'get',
    path: '/api/v1/grid/{n}',
    tags: ['rounds'],
    summary: 'Statistics and recent hit series of one square',
    access: 'paid',
    cost: 1,
    parameters: {
      path: Type.Object({ n: Type.Integer({ minimum: 0, maximum: 24, description: 'Square index 0..24 (5*row + column, 0 = top-left)' }) }),
      query: Type.Object({ limit: limit(200) }),
    },
    responses: { 200: { description: 'Square', content: { 'application/json': gridSchema } } },
  }),
  dumpRounds: operation({
    method: 'get',
    path: '/api/v1/dump',
    tags: ['rounds'],
    summary: 'Bulk export, ascending ids',
    access: 'paid',
    cost: 1,
    parameters: {
      query: Type.Object({
        from: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'Inclusive; default the first stored round' })),
        to: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID, description: 'Inclusive; default the latest round' })),
        limit: limit(5000),
      }),
    },
    responses: {
      200: {
        description:
          'A page, or with `Accept application/x-ndjson` the whole range, one Round per line (NDJSON dumps at most DUMPS_PER_KEY (1) per key and DUMPS_PER_ADDRESS (2) per address, 429 too_many_dumps / too_many_dumps_from_address; every dump slot of the replica busy, 503 dumps_busy; a client that reads less than 64 KiB/s over 30 s, or nothing, is disconnected, and a dump still running after 15 minutes is ended; resume with from set to the id after the last complete line)',
        content: { 'application/json': dumpPageSchema, 'application/x-ndjson': Type.String() },
      },
      503: UNAVAILABLE,
    },
  }),
  getOpenApi: operation({
    method: 'get',
    path: '/api/v1/openapi.json',
    tags: ['document'],
    summary: 'This document',
    access: 'public',
    cost: 1,
    responses: { 200: { description: 'OpenAPI 3.1', content: { 'application/json': Type.Unsafe({ type: 'object' }) } } },
  }),
} as const;
