import { Readable } from 'node:stream';
import type { MinerRound, MinerRoundList, MinerSummary } from '@gridlab/contracts';
import { NotFoundError } from '@gridlab/errors';
import { ndjsonLine } from '@gridlab/miners-store';
import type { Response } from 'express';
import { minerCsvHeader, minerCsvRow } from '../../domain/miner-csv';
import type { DumpSettings } from '../app';
import { admitDump } from '../caps';
import { pipePaced } from '../paced-pipe';
import type { Handlers } from './handler';

const JSON_TYPE = 'application/json';
const NDJSON = 'application/x-ndjson';
const CSV = 'text/csv';

function minerNotFound(address: string): NotFoundError {
  return new NotFoundError('miner_not_found', `no settled round of ${address} is indexed`);
}

/** Every wallet's ledger: its summary, rounds (a page, or the whole ledger as NDJSON or CSV), performance, the top miners and a round's miners. */
export const minersHandlers: Handlers<'getMiner' | 'listMinerRounds' | 'getMinerPerformance' | 'listTopMiners' | 'getRoundMiners'> = {
  getMiner: async ({ deps, params, res }) => {
    const { address } = params.path;
    // The chain is asked alongside (cached a few seconds; null, never an error, when it does not answer).
    const [summary, claimable] = await Promise.all([deps.miners.summary(address, new Date()), deps.minerClaims.claimable(address)]);
    if (summary === null) throw minerNotFound(address);
    res.json({ ...summary, claimable } satisfies MinerSummary);
  },

  listMinerRounds: async ({ deps, params, req, res, caller }) => {
    const { address } = params.path;
    const { before, limit } = params.query;
    const format = req.accepts([JSON_TYPE, NDJSON, CSV]);
    if (format === NDJSON || format === CSV) {
      // Under the caps of /dump (its registry and slots) before anything is read.
      admitDump(deps.dumps.registry, deps.dumps.maxConcurrent, caller, req, res);
      const batches = await deps.miners.exportRounds(address, before);
      if (batches === null) throw minerNotFound(address);
      return streamExport(deps.dumps, batches, format, res);
    }
    const page = await deps.miners.rounds(address, before === undefined ? { limit } : { before, limit });
    if (page === null) throw minerNotFound(address);
    res.json({ count: page.rounds.length, rounds: [...page.rounds], nextBefore: page.nextBefore } satisfies MinerRoundList);
  },

  getMinerPerformance: async ({ deps, params, res }) => {
    const performance = await deps.miners.performance(params.path.address, params.query.bucket);
    if (performance === null) throw minerNotFound(params.path.address);
    res.json(performance);
  },

  listTopMiners: async ({ deps, params, res }) => {
    const { sort, window, limit } = params.query;
    res.json(await deps.miners.top(sort, window, limit, new Date()));
  },

  getRoundMiners: async ({ deps, params, res }) => {
    const miners = await deps.miners.roundMiners(params.path.id);
    if (miners === null) throw new NotFoundError('round_not_found', `the miners of round ${params.path.id} are not indexed`);
    res.json(miners);
  },
};

/** The batches as NDJSON lines, or as CSV after its header line. */
async function* exportLines(batches: AsyncIterable<readonly MinerRound[]>, format: typeof NDJSON | typeof CSV): AsyncGenerator<Buffer> {
  if (format === CSV) yield Buffer.from(minerCsvHeader());
  for await (const batch of batches) {
    let text = '';
    for (const row of batch) text += format === CSV ? minerCsvRow(row) : ndjsonLine(row);
    if (text !== '') yield Buffer.from(text);
  }
}

/**
 * A wallet's whole ledger, a batch at a time as the store reads it: the next batch is not
 * asked for until the client's socket has taken the last (constant memory), and a client
 * too slow for the dump rules is dropped, which ends the store's read.
 */
async function streamExport(dumps: DumpSettings, batches: AsyncIterable<readonly MinerRound[]>, format: typeof NDJSON | typeof CSV, res: Response): Promise<void> {
  res.status(200).type(format === CSV ? 'text/csv; charset=utf-8; header=present' : NDJSON).set('Cache-Control', 'no-store');
  await pipePaced(dumps, Readable.from(exportLines(batches, format), { objectMode: false, highWaterMark: 1 }), res);
}
