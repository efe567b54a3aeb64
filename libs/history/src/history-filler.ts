import type { MinerRows, RoundLayout } from '@gridlab/chain';
import type { PayoutRule, Round } from '@gridlab/contracts';
import { isGridlabError } from '@gridlab/errors';
import { ledgerRows, settleWhenDecided, storedRound, type FetchedRound, type TransactionHistory } from './transaction-history';

/** A round that was not stored this time, and why (it is tried again later). */
export interface RefusedRound {
  readonly id: number;
  /**
   * `absent` (no transaction ever touched it), a rebuild refusal, `no_rule_matches` or
   * `undecodable` (the node returned something that is not a transaction).
   */
  readonly reason: string;
  readonly detail: string;
}

/** Where a fill reads what is missing and writes what it rebuilt (the indexer's tables). */
export interface FillStore {
  missingIds(fromId: number, toId: number, limit: number): Promise<number[]>;
  missingCount(fromId: number, toId: number): Promise<number>;
  /** Stores rounds (idempotent) and forgets their refusals; returns how many were new. */
  insert(rounds: readonly Round[]): Promise<number>;
  /** Records refusals, each tried again later (with back-off), never given up on. */
  markRefused(rounds: readonly RefusedRound[]): Promise<void>;
  /** Which of `ids` were refused before: taking them again is a retry. */
  refusedAmong(ids: readonly number[]): Promise<number[]>;
  /** The payout rule of the nearest stored round before `id`. */
  ruleBefore(id: number): Promise<PayoutRule | null>;
  /**
   * Stores the miners of rounds just stored (when the history reads the ledger); idempotent.
   * May leave them out of the miners' rollups until `foldMiners`.
   */
  insertMiners?(rounds: readonly RoundWithMiners[]): Promise<void>;
  /** Adds the miners stored by `insertMiners` and not yet in the rollups to them. */
  foldMiners?(): Promise<void>;
}

/** A stored round and its miners' rows. */
export interface RoundWithMiners {
  readonly round: Round;
  readonly miners: MinerRows;
}

/** How a fill is going. */
export interface FillProgress {
  readonly fromId: number;
  readonly toId: number;
  /** Rounds missing when the fill started. */
  readonly total: number;
  /** Rounds done (stored or refused). */
  readonly done: number;
  readonly stored: number;
  /** Of the stored, the partly known (automated deploys before 2025-12-30 that do not show their squares). */
  readonly partial: number;
  readonly refused: number;
  /** Rounds refused before that this fill took again (stored or refused once more). */
  readonly retried: number;
  /** Of those, the ones stored. */
  readonly recovered: number;
  /** Parts of the rounds' transactions that did not decode and were skipped, by reason. */
  readonly skipped: Readonly<Record<string, number>>;
  readonly transactions: number;
  readonly calls: number;
  readonly elapsedSeconds: number;
  readonly roundsPerSecond: number;
  readonly transactionsPerSecond: number;
  /** At the rate so far; null before the first round. */
  readonly etaSeconds: number | null;
  /** The newest round done. */
  readonly lastId: number | null;
}

export interface FillOptions {
  /** Rounds fetched at once (each is a few RPC calls; the RPC client bounds requests in flight). Default 4. */
  readonly concurrency?: number;
  /** Missing ids read, rebuilt and stored together. Default 100. */
  readonly chunk?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FillProgress) => void;
  /** Rounds just stored, in id order (to announce them). */
  readonly onStored?: (rounds: readonly Round[]) => Promise<void>;
  readonly onRefused?: (round: RefusedRound) => void;
  /** Refused rounds taken again (their retry was due), before they are fetched. */
  readonly onRetrying?: (ids: readonly number[]) => void;
  /** A fetch failed for a reason worth retrying (RPC down, a transaction the node lacks); the fill waits `retryInMs` and tries again. */
  readonly onRetry?: (id: number, error: unknown, retryInMs: number) => void;
  /** Rounds whose miners are stored between two `foldMiners` (and one at the end). Default 1,000. */
  readonly foldEvery?: number;
  readonly now?: () => number;
}

const MAX_RETRY_MS = 30_000;
/**
 * Rounds' miners stored between folds: a fold rewrites each wallet's day and total once,
 * however many rounds it adds (~0.6 s for 1,000 mainnet rounds), and the summaries lag
 * the stored rows by at most this many rounds.
 */
const FOLD_EVERY = 1000;

/**
 * Rebuilds every round of [fromId, toId] that is not stored, from its transactions, in
 * ascending id order (a voided round takes the rule of the round before it, and readers
 * in id order, the event log, can follow the fill as it goes), refused rounds among them
 * once their retry is due. Rounds are fetched several at a time and stored a chunk at a
 * time; what does not add up is recorded as refused with its reason, never stored, and
 * tried again later with back-off. Resumable: a new fill skips what an earlier one
 * stored. Ends early, without error, when `signal` aborts.
 */
export async function fillHistory(range: { readonly fromId: number; readonly toId: number }, history: TransactionHistory, store: FillStore, options: FillOptions = {}): Promise<FillProgress> {
  const now = options.now ?? Date.now;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const chunkSize = Math.max(1, options.chunk ?? 100);
  const foldEvery = Math.max(1, options.foldEvery ?? FOLD_EVERY);
  const started = now();
  const total = await store.missingCount(range.fromId, range.toId);
  let stored = 0;
  let partial = 0;
  let refused = 0;
  let retried = 0;
  let recovered = 0;
  const skipped: Record<string, number> = {};
  let transactions = 0;
  let calls = 0;
  let lastId: number | null = null;
  let lastLayout: RoundLayout | null = null;
  /** Rounds whose miners were stored since the last fold. */
  let unfolded = 0;
  const progress = (): FillProgress => {
    const elapsedSeconds = (now() - started) / 1000;
    const done = stored + refused;
    const roundsPerSecond = elapsedSeconds > 0 ? done / elapsedSeconds : 0;
    return {
      ...range,
      total,
      done,
      stored,
      partial,
      refused,
      retried,
      recovered,
      skipped: { ...skipped },
      transactions,
      calls,
      elapsedSeconds,
      roundsPerSecond,
      transactionsPerSecond: elapsedSeconds > 0 ? transactions / elapsedSeconds : 0,
      etaSeconds: done === 0 ? null : Math.max(0, total - done) / roundsPerSecond,
      lastId,
    };
  };
  /** Stores a chunk's rounds and refusals; the counters and the progress move once it is. */
  const storeChunk = async (rounds: Round[], miners: RoundWithMiners[], refusals: RefusedRound[], retriedIds: ReadonlySet<number>): Promise<void> => {
    if (rounds.length > 0) {
      await store.insert(rounds);
      if (miners.length > 0) await store.insertMiners?.(miners);
      unfolded += miners.length;
      if (unfolded >= foldEvery) {
        // Here, while the next chunk is fetched: the fold's database work overlaps the reading.
        await store.foldMiners?.();
        unfolded = 0;
      }
      await options.onStored?.(rounds);
    }
    if (refusals.length > 0) {
      await store.markRefused(refusals);
      for (const r of refusals) options.onRefused?.(r);
    }
    stored += rounds.length;
    for (const r of rounds) if (r.source === 'transactions_partial') partial++;
    refused += refusals.length;
    retried += retriedIds.size;
    for (const r of rounds) if (retriedIds.has(r.id)) recovered++;
    options.onProgress?.(progress());
  };
  let from = range.fromId;
  // The chunk before, stored while this one is fetched: the RPC node is not left idle meanwhile.
  let storing: Promise<void> = Promise.resolve();
  try {
    while (!options.signal?.aborted) {
      const ids = await store.missingIds(from, range.toId, chunkSize);
      if (ids.length === 0) break;
      const retriedIds = new Set(await store.refusedAmong(ids));
      if (retriedIds.size > 0) options.onRetrying?.([...retriedIds]);
      const fetched = await mapLimited(ids, concurrency, (id) => fetchWithRetry(history, id, lastLayout, options));
      // Stored before this chunk's rounds are, so they find those as the rounds before them.
      await storing;
      // Told to stop while the chunk before was stored (its progress report may have told it): this chunk is dropped.
      if (fetched === null || options.signal?.aborted) break;
      const rounds: Round[] = [];
      const miners: RoundWithMiners[] = [];
      const refusals: RefusedRound[] = [];
      let previous: { id: number; rule: PayoutRule } | null = null;
      for (const f of fetched) {
        transactions += f.transactions;
        calls += f.calls;
        if ('result' in f) for (const [reason, n] of Object.entries(f.result.skippedReasons)) skipped[reason] = (skipped[reason] ?? 0) + (n ?? 0);
        if ('refused' in f) {
          refusals.push(f.refused);
          continue;
        }
        if (!f.result.ok) {
          refusals.push({ id: f.id, reason: f.signatures === 0 ? 'absent' : f.result.reason, detail: f.result.detail });
          continue;
        }
        const rule = previous !== null && previous.id === f.id - 1 ? previous.rule : await store.ruleBefore(f.id);
        const round = storedRound(f as FetchedRound & { result: { ok: true } }, rule, new Date(now()));
        if (!round.ok) {
          refusals.push({ id: f.id, reason: 'no_rule_matches', detail: round.detail });
          continue;
        }
        lastLayout = f.result.account.layout;
        previous = { id: f.id, rule: round.round.payoutRule };
        rounds.push(round.round);
        const rows = ledgerRows(f, round.round);
        if (rows !== null) miners.push({ round: round.round, miners: rows });
      }
      lastId = ids[ids.length - 1]!;
      from = lastId + 1;
      storing = storeChunk(rounds, miners, refusals, retriedIds);
      // Awaited before the next chunk's rounds (or at the end); a failure is thrown there.
      storing.catch(() => undefined);
    }
    await storing;
    // Also when stopped early: what was stored counts in the rollups. A failed fill leaves
    // its rounds for the next fold (the ledger follower folds when it maintains).
    if (unfolded > 0) await store.foldMiners?.();
  } catch (error) {
    // Nothing is left writing behind the caller's back.
    await storing.catch(() => undefined);
    throw error;
  }
  return progress();
}

type Fetched = FetchedRound | (Pick<FetchedRound, 'id' | 'transactions' | 'calls'> & { readonly refused: RefusedRound });

/** Fetches a round until it is rebuilt or refused (tried again by a later fill), or the fill is aborted (null). */
async function fetchWithRetry(history: TransactionHistory, id: number, layout: RoundLayout | null, options: FillOptions): Promise<Fetched | null> {
  let delay = 500;
  for (;;) {
    if (options.signal?.aborted) return null;
    try {
      return settleWhenDecided(await history.fetch(id, layout));
    } catch (error) {
      // Not a transaction at all (the node's answer, not anyone's transaction): refused, and tried again later, with back-off.
      if (isGridlabError(error) && error.kind === 'decode') {
        return { id, transactions: 0, calls: 0, refused: { id, reason: 'undecodable', detail: error.message } };
      }
      options.onRetry?.(id, error, delay);
      if (!(await pause(delay, options.signal))) return null;
      delay = Math.min(MAX_RETRY_MS, delay * 2);
    }
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (value: boolean): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `fn` over `items` with at most `limit` running, results in order; null when any gave null (aborted). */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R | null>): Promise<R[] | null> {
  const out = new Array<R>(items.length);
  let next = 0;
  let aborted = false;
  const worker = async (): Promise<void> => {
    while (!aborted && next < items.length) {
      const i = next++;
      const r = await fn(items[i]!);
      if (r === null) aborted = true;
      else out[i] = r;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return aborted ? null : out;
}
