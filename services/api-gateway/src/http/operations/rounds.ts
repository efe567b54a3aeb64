import type { DumpPage, Grid, LiveEv, RoundList, RoundWithNeighbours, Stats } from '@gridlab/contracts';
import { InputError, NotFoundError, UnavailableError } from '@gridlab/errors';
import type { Response } from 'express';
import { computeGrid } from '../../domain/grid';
import { liveEv } from '../../domain/live-ev';
import { computeStats } from '../../domain/stats';
import { liveUnavailable, type DumpSettings } from '../app';
import { admitDump } from '../caps';
import { openApiJson } from '../openapi';
import { pipePaced } from '../paced-pipe';
import type { Handlers } from './handler';

const NDJSON = 'application/x-ndjson';

/** The live round's expected values, the stored rounds, their statistics, and the document. */
export const roundsHandlers: Handlers<'getLiveEv' | 'getStats' | 'listRounds' | 'getRound' | 'getGrid' | 'dumpRounds' | 'getOpenApi'> = {
  getLiveEv: ({ deps, params, res }) => {
    const view = deps.live.view();
    if (view === null) throw liveUnavailable();
    const { stakeLamports, k, orePriceLamports } = params.query;
    const ev = liveEv(view.held.snapshot, { stakeLamports, k, ...(orePriceLamports === undefined ? {} : { orePriceLamports }) });
    if (ev === null) throw new UnavailableError("the live round's game is not known yet (the indexer publishes it with each snapshot)", { retryAfterSeconds: 5 });
    res.set('Cache-Control', 'no-store').json({ ...ev, stale: view.stale } satisfies LiveEv);
  },

  getStats: async ({ deps, res }) => {
    res.json(computeStats(await deps.rounds.aggregates()) satisfies Stats);
  },

  listRounds: async ({ deps, params, res }) => {
    const rounds = await deps.rounds.latest(params.query.limit);
    res.json({ count: rounds.length, rounds } satisfies RoundList);
  },

  getRound: async ({ deps, params, res }) => {
    const found = await deps.rounds.findWithNeighbours(params.path.id);
    if (found === null) throw new NotFoundError('round_not_found', `round ${params.path.id} is not indexed`);
    res.json({ ...found.round, prevId: found.prevId, nextId: found.nextId } satisfies RoundWithNeighbours);
  },

  getGrid: async ({ deps, params, res }) => {
    const square = params.path.n;
    const [aggregates, recent] = await Promise.all([deps.rounds.aggregates(), deps.rounds.recentOutcomes(params.query.limit)]);
    res.json(computeGrid(square, aggregates.squares[square]!, aggregates.roundsIndexed - aggregates.voidedRounds, recent) satisfies Grid);
  },

  dumpRounds: async ({ deps, params, req, res, caller }) => {
    const { from, to, limit } = params.query;
    if (from !== undefined && to !== undefined && from > to) {
      throw new InputError('from must not be greater than to', { errors: [{ path: '/query/from', message: 'must be <= to' }] });
    }
    const totals = await deps.rounds.aggregates();
    const range = { from: from ?? totals.firstId ?? 0, to: to ?? totals.lastId ?? 0 };
    if (req.accepts(['application/json', NDJSON]) === NDJSON) {
      admitDump(deps.dumps.registry, deps.dumps.maxConcurrent, caller, req, res);
      return streamDump(deps.dumps, range, res);
    }
    const rows = totals.lastId === null ? [] : await deps.rounds.getRounds({ fromId: range.from, toId: range.to, limit: limit + 1 });
    const hasMore = rows.length > limit;
    const rounds = hasMore ? rows.slice(0, limit) : rows;
    res.json({ count: rounds.length, from: range.from, to: range.to, hasMore, nextFrom: hasMore ? rounds[rounds.length - 1]!.id + 1 : null, rounds } satisfies DumpPage);
  },

  getOpenApi: ({ res }) => {
    res.type('application/json').send(openApiJson());
  },
};

/**
 * Streams every round of the range as NDJSON straight from a binary COPY over the dump
 * pool, with backpressure from the client's socket back to PostgreSQL: constant memory
 * whatever the range. A client that reads too slowly stalls the COPY and holds a dump slot
 * and a snapshot: it is dropped by the dump rules (../paced-pipe.ts) and its connection discarded.
 */
async function streamDump(dumps: DumpSettings, range: { from: number; to: number }, res: Response): Promise<void> {
  const { stream, release } = await dumps.rounds.exportNdjson(range.from, range.to);
  res.status(200).type(NDJSON).set('Cache-Control', 'no-store');
  try {
    await pipePaced(dumps, stream, res);
  } finally {
    release();
  }
}
