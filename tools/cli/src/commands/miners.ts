import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { GridlabClient, MinerExportFormat, MinerSummary, MinerWindow } from '@gridlab/client';
import { LAMPORTS_PER_SOL, MINER_SORTS, ORE_BASE_UNITS, MINER_WINDOWS, type MinerSort, type MinerWindowName } from '@gridlab/contracts';
import { InputError } from '@gridlab/errors';
import type { Command } from 'commander';
import { apiOptions, clientFor, printTable, roundIdOption, type ApiOptions } from '../api';
import { progressReporter } from '../progress';

const WINDOWS = ['24h', '7d', '30d', 'all'] as const;
const EXPORT_FORMATS: readonly MinerExportFormat[] = ['csv', 'ndjson'];

const sol = (lamports: number): string => (lamports / LAMPORTS_PER_SOL).toFixed(4);
const ore = (units: number): string => (units / ORE_BASE_UNITS).toFixed(4);

interface MinerOptions extends ApiOptions {
  rounds: boolean;
  limit?: number;
  before?: number;
  export?: string;
  out?: string;
}

interface TopOptions extends ApiOptions {
  top: boolean;
  sort: string;
  window: string;
  limit?: number;
}

function positive(max: number): (value: string) => number {
  return (value) => {
    if (!/^[1-9]\d*$/.test(value) || Number(value) > max) throw new InputError(`${value} is not an integer from 1 to ${max}`);
    return Number(value);
  };
}

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new InputError(`${what} must be one of ${allowed.join(', ')}`);
  return value as T;
}

/** One line of the summary table: a window's figures. */
function windowRow(name: string, w: MinerWindow): unknown[] {
  const fees = w.adminFee + w.protocolFee + w.networkFee + w.priorityFee + w.executorFee;
  return [name, w.rounds, sol(w.deployed), sol(w.solBack), sol(fees), sol(w.net), ore(w.ore), sol(w.netWithOre), w.wins, w.winRate === null ? null : `${(w.winRate * 100).toFixed(1)}%`, w.firstRound, w.lastRound];
}

function printSummary(opts: ApiOptions, summary: MinerSummary): void {
  printTable(
    opts,
    summary,
    ['window', 'rounds', 'deployed SOL', 'SOL back', 'fees SOL', 'net SOL', 'ORE', 'net with ORE SOL', 'wins', 'win rate', 'first', 'last'],
    WINDOWS.map((name) => windowRow(name, summary[name])),
  );
  if (opts.json === true) return;
  const c = summary.claimable;
  process.stdout.write(
    c === null
      ? 'claimable: unknown (no Miner account, or the gateway does not read the chain)\n'
      : `claimable: ${sol(c.sol)} SOL, ${ore(c.ore)} ORE unrefined (10% refining fee on claim), ${ore(c.refinedOre)} ORE refined; last checkpoint round ${c.checkpointedRound}\n`,
  );
}

/** Writes a chunk, waiting for the stream to drain when it asks to (the download goes no faster than the disk or the pipe). */
async function writeChunk(out: Writable, chunk: string): Promise<void> {
  if (!out.write(chunk)) await once(out, 'drain');
}

/**
 * The wallet's whole ledger as the server writes it, to stdout or a file, with a progress
 * bar on stderr counted in rows against the rounds its summary reports (an upper bound
 * with --before).
 */
async function exportLedger(client: GridlabClient, address: string, format: MinerExportFormat, opts: MinerOptions): Promise<void> {
  const total = (await client.miner(address)).all.rounds;
  const progress = progressReporter<{ rows: number; total: number }>({
    format: 'export [{bar}] {percentage}% | {value}/{total} rounds | ETA {eta_formatted}',
    etaBuffer: 50,
    total: (p) => p.total,
    value: (p) => p.rows,
    payload: () => ({}),
    line: (p) => `export: ${p.rows}/${p.total} rounds`,
    final: (p) => p.rows >= p.total,
  });
  const out: Writable = opts.out === undefined ? process.stdout : createWriteStream(opts.out);
  // A CSV's first line is its header, not a round.
  let lines = format === 'csv' ? -1 : 0;
  try {
    for await (const chunk of client.exportMinerRoundsText(address, format, opts.before === undefined ? {} : { before: opts.before })) {
      await writeChunk(out, chunk);
      for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) lines++;
      progress.update({ rows: Math.max(0, lines), total: Math.max(total, lines) });
    }
    progress.update({ rows: Math.max(0, lines), total: Math.max(0, lines) });
  } finally {
    progress.stop();
    if (out !== process.stdout) await new Promise<void>((closed, failed) => out.end((error?: Error | null) => (error ? failed(error) : closed())));
  }
}

/** `gridlab miner <address>` and `gridlab miners --top`: every wallet's ledger, from the API. */
export function registerMiners(program: Command): void {
  apiOptions(
    program
      .command('miner')
      .description("a wallet's results: all time, 24 h, 7 d and 30 d, and what it can claim; --rounds its ledger; --export csv|ndjson all of it")
      .argument('<address>', 'the wallet (base58)')
      .option('--rounds', 'its ledger, newest first', false)
      .option('--limit <n>', 'with --rounds: rows (1-1000, default 100)', positive(1000))
      .option('--before <roundId>', 'with --rounds or --export: rounds below this one', roundIdOption)
      .option('--export <format>', 'its whole ledger as csv or ndjson, streamed (progress on stderr)')
      .option('--out <file>', 'with --export: write to this file instead of stdout'),
  ).action(async (address: string, opts: MinerOptions) => {
    const client = clientFor(opts);
    if (opts.export !== undefined) {
      if (opts.rounds) throw new InputError('--export and --rounds are exclusive');
      return exportLedger(client, address, oneOf(opts.export, EXPORT_FORMATS, '--export'), opts);
    }
    if (opts.out !== undefined) throw new InputError('--out goes with --export');
    if (!opts.rounds) {
      if (opts.limit !== undefined || opts.before !== undefined) throw new InputError('--limit and --before go with --rounds or --export');
      return printSummary(opts, await client.miner(address));
    }
    const page = await client.minerRounds(address, { ...(opts.limit === undefined ? {} : { limit: opts.limit }), ...(opts.before === undefined ? {} : { before: opts.before }) });
    printTable(
      opts,
      page,
      ['round', 'settled', 'squares', 'deployed SOL', 'SOL back', 'net SOL', 'ORE', 'won', 'auto'],
      page.rounds.map((r) => [
        r.roundId,
        r.settledAt,
        r.squares?.join(' ') ?? null,
        r.deployed === null ? null : sol(r.deployed),
        r.solBack === null ? null : sol(r.solBack),
        r.net === null ? null : sol(r.net),
        ore((r.oreTopMiner ?? 0) + (r.oreSplit ?? 0) + (r.oreMotherlode ?? 0)),
        r.heldWinningSquare,
        r.automated,
      ]),
    );
    if (opts.json !== true && page.nextBefore !== null) process.stdout.write(`more: --before ${page.nextBefore}\n`);
  });

  apiOptions(
    program
      .command('miners')
      .description('the top miners of a window, by net SOL, ORE, SOL deployed or rounds')
      .option('--top', 'the top miners (the listing this command gives)', true)
      .option('--sort <by>', `${MINER_SORTS.join(' | ')}`, 'net')
      .option('--window <w>', `${MINER_WINDOWS.join(' | ')}`, '24h')
      .option('--limit <n>', 'wallets (1-100, default 25)', positive(100)),
  ).action(async (opts: TopOptions) => {
    const sort = oneOf<MinerSort>(opts.sort, MINER_SORTS, '--sort');
    const window = oneOf<MinerWindowName>(opts.window, MINER_WINDOWS, '--window');
    const top = await clientFor(opts).topMiners({ sort, window, ...(opts.limit === undefined ? {} : { limit: opts.limit }) });
    printTable(
      opts,
      top,
      ['rank', 'address', 'rounds', 'deployed SOL', 'net SOL', 'ORE'],
      top.miners.map((m) => [m.rank, m.address, m.rounds, sol(m.deployed), sol(m.net), ore(m.ore)]),
    );
  });
}
