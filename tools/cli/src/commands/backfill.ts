import { callsPerSecond, decodeBoard, ORE_PROGRAM_ID, OrePdas, parseRpcLimitsSetting, PUBLIC_MAINNET_LIMITS, SolanaRpc } from '@gridlab/chain';
import { int, loadConfig, str } from '@gridlab/config';
import { createPool, runMigrations } from '@gridlab/db';
import { InputError } from '@gridlab/errors';
import { fillHistory, TransactionHistory, type FillProgress, type FillStore } from '@gridlab/history';
import { historyFillStore, INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import type { Command } from 'commander';
import { loadCliConfig } from '../config';
import { progressReporter, type ProgressReporter } from '../progress';

/** Rounds whose signatures are counted first, for the estimate. */
const SAMPLE = 3;

/** The RPC settings, read as the indexer reads them. */
const RPC_SCHEMA = {
  SOLANA_RPC_URL: str({ default: 'http://127.0.0.1:8899' }),
  ORE_PROGRAM_ID: str({ default: ORE_PROGRAM_ID }),
  RPC_LIMITS: str({ default: PUBLIC_MAINNET_LIMITS }),
  RPC_BATCH_MAX: int({ default: 100, min: 1, max: 1000 }),
  RPC_CONCURRENCY: int({ default: 4, min: 1, max: 64 }),
};

interface BackfillOptions {
  fromRound?: number;
  toRound?: number;
  rpc?: string;
  concurrency: number;
  refused?: boolean;
  retry?: number | true;
}

/**
 * `gridlab backfill --from-round N [--to-round M]`: rebuild closed rounds from their
 * transactions; `--refused` lists the rounds refused so far, `--retry [id]` tries them
 * (or one) again at once.
 */
export function registerBackfill(program: Command): void {
  program
    .command('backfill')
    .description(
      'Rebuild settled rounds that are not stored (their accounts closed) from their transactions, into ' +
        'PostgreSQL, within the RPC provider\'s limits (RPC_LIMITS, RPC_BATCH_MAX, RPC_CONCURRENCY). Prints ' +
        'an estimate of the RPC calls first. Resumable: stored rounds are skipped, so run it again after an ' +
        'interruption. Rounds that do not add up are recorded as refused, never stored, and tried again ' +
        'later with back-off (by the indexer, or at once with --retry).',
    )
    .option('--from-round <id>', 'the first round id to rebuild (required unless --refused or --retry)', roundId)
    .option('--to-round <id>', 'the last round id to rebuild (default: the newest settled round)', roundId)
    .option('--rpc <url>', 'Solana JSON-RPC endpoint (default SOLANA_RPC_URL)')
    .option('--concurrency <n>', 'rounds fetched at once', (v) => Number.parseInt(v, 10), 4)
    .option('--refused', 'list the refused rounds (id, reason, detail, attempts, next attempt), one JSON line each, and exit')
    .option('--retry [id]', 'try every refused round again now (or only round id), then print the summary', roundId)
    .action(async (opts: BackfillOptions) => {
      if (opts.refused === true) return listRefused();
      if (opts.retry !== undefined) return retryRefused(opts);
      if (opts.fromRound === undefined) throw new InputError('--from-round is required (or --refused, --retry)');
      const fromRound = opts.fromRound;
      const config = loadCliConfig();
      const rpcConfig = loadConfig(RPC_SCHEMA, process.env);
      const limits = parseRpcLimitsSetting(rpcConfig.RPC_LIMITS);
      const rpc = new SolanaRpc(opts.rpc ?? rpcConfig.SOLANA_RPC_URL, { limits, batchMax: rpcConfig.RPC_BATCH_MAX, concurrency: rpcConfig.RPC_CONCURRENCY });
      const pdas = new OrePdas(rpcConfig.ORE_PROGRAM_ID);
      const toRound = opts.toRound ?? (await newestSettled(rpc, pdas));
      if (toRound < fromRound) throw new InputError(`--to-round ${toRound} is before --from-round ${fromRound}`);
      await runMigrations({ databaseUrl: config.DATABASE_URL, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
      const pool = createPool(config.DATABASE_URL, { max: 3, applicationName: 'gridlab-cli' });
      const abort = new AbortController();
      const interrupt = (): void => {
        process.stderr.write('backfill: stopping after the rounds in flight (run it again to resume)\n');
        abort.abort();
      };
      process.once('SIGINT', interrupt);
      const reporter = backfillProgress();
      try {
        const store: FillStore = historyFillStore(pool);
        const range = { fromId: fromRound, toId: toRound };
        const fetcher = new TransactionHistory(rpc, pdas);
        await estimate(range, store, fetcher, rpc, limits);
        const result = await fillHistory(range, fetcher, store, {
          concurrency: opts.concurrency,
          signal: abort.signal,
          onProgress: (progress) => reporter.update(progress),
          onRefused: (r) => process.stderr.write(`round ${r.id} not rebuilt (${r.reason}): ${r.detail}\n`),
          onRetry: (id, error, ms) => process.stderr.write(`round ${id}: ${error instanceof Error ? error.message : String(error)}; retrying in ${ms} ms\n`),
        });
        reporter.stop();
        process.stdout.write(`${JSON.stringify({ ...summary(result), interrupted: abort.signal.aborted })}\n`);
      } finally {
        reporter.stop();
        process.off('SIGINT', interrupt);
        rpc.close();
        await pool.end();
      }
    });
}

/** `--refused`: every refused round, one JSON line each, in id order. */
async function listRefused(): Promise<void> {
  const config = loadCliConfig();
  await runMigrations({ databaseUrl: config.DATABASE_URL, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  const pool = createPool(config.DATABASE_URL, { max: 1, applicationName: 'gridlab-cli' });
  try {
    const refused = await historyFillStore(pool).refused();
    for (const r of refused) {
      process.stdout.write(`${JSON.stringify({ id: r.id, reason: r.reason, detail: r.detail, attempts: r.attempts, nextAttemptAt: r.nextAttemptAt.toISOString(), refusedAt: r.at.toISOString() })}\n`);
    }
    process.stderr.write(`backfill: ${refused.length} refused round${refused.length === 1 ? '' : 's'}\n`);
  } finally {
    await pool.end();
  }
}

/**
 * `--retry [id]`: the refused rounds (or one) made due now and rebuilt at once, a run of
 * consecutive ids at a time (so no other missing round between them is fetched); those
 * refused again wait for their next back-off.
 */
async function retryRefused(opts: BackfillOptions): Promise<void> {
  const config = loadCliConfig();
  const rpcConfig = loadConfig(RPC_SCHEMA, process.env);
  const limits = parseRpcLimitsSetting(rpcConfig.RPC_LIMITS);
  await runMigrations({ databaseUrl: config.DATABASE_URL, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  const pool = createPool(config.DATABASE_URL, { max: 3, applicationName: 'gridlab-cli' });
  const rpc = new SolanaRpc(opts.rpc ?? rpcConfig.SOLANA_RPC_URL, { limits, batchMax: rpcConfig.RPC_BATCH_MAX, concurrency: rpcConfig.RPC_CONCURRENCY });
  try {
    const store = historyFillStore(pool);
    const only = opts.retry === true ? undefined : opts.retry;
    const ids = await store.retryRefusedNow(only);
    if (only !== undefined && ids.length === 0) throw new InputError(`round ${only} is not refused`);
    const fetcher = new TransactionHistory(rpc, new OrePdas(rpcConfig.ORE_PROGRAM_ID));
    const totals = { retried: ids.length, stored: 0, refused: 0, transactions: 0, rpcCalls: 0 };
    for (const run of consecutiveRuns(ids)) {
      const result = await fillHistory(run, fetcher, store, {
        concurrency: opts.concurrency,
        onRefused: (r) => process.stderr.write(`round ${r.id} not rebuilt (${r.reason}): ${r.detail}\n`),
        onRetry: (id, error, ms) => process.stderr.write(`round ${id}: ${error instanceof Error ? error.message : String(error)}; retrying in ${ms} ms\n`),
      });
      totals.stored += result.stored;
      totals.refused += result.refused;
      totals.transactions += result.transactions;
      totals.rpcCalls += result.calls;
    }
    process.stdout.write(`${JSON.stringify(totals)}\n`);
  } finally {
    rpc.close();
    await pool.end();
  }
}

/** Ascending ids as runs of consecutive ids: [3, 4, 5, 9] gives 3..5 and 9..9. */
function consecutiveRuns(ids: readonly number[]): { fromId: number; toId: number }[] {
  const runs: { fromId: number; toId: number }[] = [];
  for (const id of ids) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last.toId === id - 1) last.toId = id;
    else runs.push({ fromId: id, toId: id });
  }
  return runs;
}

function roundId(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InputError(`${value} is not a round id`);
  return n;
}

async function newestSettled(rpc: SolanaRpc, pdas: OrePdas): Promise<number> {
  const board = await rpc.getAccount(pdas.board.toBase58());
  if (board === null) throw new InputError('the chain has no ORE board account: is SOLANA_RPC_URL / ORE_PROGRAM_ID right?');
  return decodeBoard(board.data).roundId - 1;
}

/**
 * What the fill will cost, from the missing count and the signatures of a few missing
 * rounds: a signature page and ceil(transactions / batch) batches per round, and how
 * long that takes at the configured budgets.
 */
async function estimate(range: { fromId: number; toId: number }, store: FillStore, fetcher: TransactionHistory, rpc: SolanaRpc, limits: ReturnType<typeof parseRpcLimitsSetting>): Promise<void> {
  const missing = await store.missingCount(range.fromId, range.toId);
  const sample = await store.missingIds(range.fromId, range.toId, SAMPLE);
  let perRound = 0;
  if (sample.length > 0) {
    let signatures = 0;
    for (const id of sample) signatures += await fetcher.countSignatures(id);
    perRound = signatures / sample.length;
  }
  const batch = rpc.batchSizeFor('getTransaction');
  const pages = missing * Math.max(1, Math.ceil(perRound / 1000));
  const batches = missing * Math.ceil(perRound / batch);
  const seconds = Math.max(pages / callsPerSecond(limits, 'getSignaturesForAddress'), (missing * perRound) / callsPerSecond(limits, 'getTransaction'));
  process.stderr.write(
    `backfill: ${missing.toLocaleString('en')} rounds to rebuild in ${range.fromId}..${range.toId}, about ${Math.round(perRound)} transactions each: ` +
      `about ${(pages + batches).toLocaleString('en')} RPC requests (${pages.toLocaleString('en')} signature pages, ${batches.toLocaleString('en')} batches of up to ${batch} transactions)` +
      (Number.isFinite(seconds) && seconds > 0 ? `; at least ${formatDuration(seconds)} at the configured RPC_LIMITS\n` : '; no RPC_LIMITS: as fast as the node answers\n'),
  );
}

function formatDuration(seconds: number): string {
  if (seconds < 120) return `${Math.ceil(seconds)} s`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 360) / 10} h`;
  return `${Math.round(seconds / 8640) / 10} days`;
}

function summary(p: FillProgress): Record<string, unknown> {
  return {
    fromRound: p.fromId,
    toRound: p.toId,
    missing: p.total,
    stored: p.stored,
    partial: p.partial,
    refused: p.refused,
    retried: p.retried,
    skipped: p.skipped,
    transactions: p.transactions,
    rpcCalls: p.calls,
    seconds: Math.round(p.elapsedSeconds * 10) / 10,
    roundsPerSecond: Math.round(p.roundsPerSecond * 10) / 10,
  };
}

/** The fill's progress: rounds done of those missing, transactions a second, calls made. */
function backfillProgress(): ProgressReporter<FillProgress> {
  return progressReporter<FillProgress>({
    format: 'backfill [{bar}] {percentage}% | {value}/{total} rounds | {txRate} tx/s | {calls} RPC calls | ETA {eta_formatted}',
    etaBuffer: 20,
    total: (p) => p.total,
    value: (p) => p.done,
    payload: (p) => ({ txRate: Math.round(p.transactionsPerSecond), calls: p.calls }),
    line: (p) =>
      `backfill: ${p.done}/${p.total} rounds (${p.stored} stored, ${p.refused} refused), ${Math.round(p.roundsPerSecond * 10) / 10} rounds/s` +
      (p.etaSeconds === null ? '' : `, ${formatDuration(p.etaSeconds)} left`),
    final: (p) => p.done >= p.total,
  });
}
