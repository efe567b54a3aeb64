import {
  OrePdas,
  decodeBoard,
  decodeRound,
  decodeTreasury,
  inferPayoutRule,
  layout,
  productionCost,
  toSettledRound,
  type BoardAccount,
  type RoundAccount,
} from '@gridlab/chain';
import type { PayoutRule, Round } from '@gridlab/contracts';
import { DecodeError, isGridlabError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import bs58 from 'bs58';
import type { RawAccount } from '@gridlab/chain';
import { storedRound, type TransactionHistory } from '@gridlab/history';
import { buildSnapshot } from '../domain/snapshot';
import { RoundTracker, type TrackerEffects } from '../domain/tracker';
import type { IndexerMetrics } from './metrics';
import type { AccountWatcher, ChainReader, OpenAccountFeed, RoundSink, RoundStore } from './ports';

export interface SessionDeps {
  readonly rpc: ChainReader;
  /** Opens the board/round account feed (WebSocket + polling in production). */
  readonly openFeed: OpenAccountFeed;
  readonly pdas: OrePdas;
  /** Rebuilds a round whose account is gone from its transactions; without it such a round is left as a gap. */
  readonly history?: TransactionHistory;
  readonly repo: RoundStore;
  readonly publisher: RoundSink;
  readonly metrics: IndexerMetrics;
  readonly logger: Logger;
  readonly pollIntervalMs: number;
  readonly slotSeconds: number;
  /** The stake the live snapshot's EV per square is figured for, lamports. */
  readonly evStakeLamports: number;
  readonly now: () => Date;
}

const ROUND_DISCRIMINATOR_B58 = bs58.encode([layout.ROUND_DISCRIMINATOR]);
/** Every round length the program has written, oldest first. */
const ROUND_LENGTHS = [layout.ROUND_LEN_V3_LEGACY, layout.ROUND_LEN_V3, layout.ROUND_LEN_CURRENT] as const;
/** Rounds no payout rule reproduces, kept for /readyz. */
const REJECTED_KEPT = 20;

/** A round that was not stored because neither payout rule reproduces its totals. */
export interface RejectedRound {
  readonly roundId: number;
  readonly detail: string;
  readonly at: string;
}
/** Recent rounds republished on takeover: a predecessor may have died between commit and publish. */
const REPUBLISH_ON_TAKEOVER = 100;
const MAX_RETRY_MS = 10_000;

/**
 * What the leader does: backfill what the chain still holds, then follow the board and
 * the current round, store every settled round, publish snapshots and facts. All
 * writes are idempotent, so a takeover that overlaps its predecessor doubles nothing.
 */
export class LeaderSession {
  private readonly tracker = new RoundTracker();
  private readonly feed: AccountWatcher;
  private readonly queue: number[] = [];
  private prevRound: Round | null = null;
  /** Rule of the newest round settled by this session (a voided round inherits it). */
  private previousRule: PayoutRule | null = null;
  private readonly rejected: RejectedRound[] = [];
  private draining: Promise<void> | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Ends the retry wait in progress at once (stop). */
  private wake: (() => void) | undefined;

  constructor(private readonly deps: SessionDeps) {
    this.feed = deps.openFeed((pubkey, data, slot) => this.onAccount(pubkey, data, slot));
  }

  async start(): Promise<void> {
    await this.withRetry('backfill', () => this.backfill());
    // Stopped while backfilling (shutdown, lost lock): the store may be closed already.
    if (this.stopped) return;
    const latest = await this.deps.repo.latestId();
    if (latest !== null) this.prevRound = (await this.deps.repo.getRounds({ fromId: latest, toId: latest }))[0] ?? null;
    this.previousRule = this.prevRound?.payoutRule ?? null;
    if (this.stopped) return;
    this.feed.watch(this.watched());
    this.feed.start();
  }

  /**
   * Feeds the board seen by the backfill to the tracker, so every round the board moves
   * past from here on is settled by the live path, however fast rounds go.
   */
  private seed(boardData: Buffer, slot: number): void {
    this.onAccount(this.deps.pdas.board.toBase58(), boardData, slot);
  }

  /** Stops at once what waits (retries, the feed), then waits for the round being stored. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.wake?.();
    this.feed.stop();
    await this.draining;
  }

  /** Every round account still open on chain that is not stored yet, in bulk. */
  private async backfill(): Promise<void> {
    const { slot, accounts: [board] } = await this.deps.rpc.getMultipleAccounts([this.deps.pdas.board.toBase58()]);
    if (board === null || board === undefined) throw new DecodeError('board_missing', 'the board account does not exist');
    const boardAccount = decodeBoard(board.data);
    const current = boardAccount.roundId;
    const accounts: RawAccount[] = [];
    for (const length of ROUND_LENGTHS) {
      accounts.push(...(await this.deps.rpc.getProgramAccounts(this.deps.pdas.programId.toBase58(), length, ROUND_DISCRIMINATOR_B58)));
    }
    const decodedRounds: RoundAccount[] = [];
    for (const account of accounts) {
      const decoded = this.decode(account);
      if (decoded !== null && decoded.id < current) decodedRounds.push(decoded);
    }
    // In id order, so a voided round takes the rule of the round before it.
    decodedRounds.sort((a, b) => a.id - b.id);
    const first = decodedRounds[0];
    let previous = first === undefined ? null : await this.deps.repo.ruleBefore(first.id);
    const settled: Round[] = [];
    const now = this.deps.now();
    for (const decoded of decodedRounds) {
      // The chain keeps no past production cost: backfilled rounds record the board's now.
      const round = this.toRound(decoded, previous, boardAccount, now);
      if (round === null) continue;
      previous = round.payoutRule;
      settled.push(round);
    }
    const stored = await this.deps.repo.storedIds(settled.map((r) => r.id));
    const missing = settled.filter((r) => !stored.has(r.id));
    const inserted = await this.deps.repo.insertMany(missing);
    this.deps.metrics.roundsSettled.inc(inserted);
    if (inserted > 0) this.deps.metrics.lastStored.set(this.deps.now().getTime() / 1000);
    const latest = await this.deps.repo.latestId();
    const recent = latest === null ? [] : await this.deps.repo.getRounds({ fromId: Math.max(0, latest - REPUBLISH_ON_TAKEOVER + 1), toId: latest });
    const toPublish = new Map<number, Round>();
    for (const r of [...missing, ...recent]) toPublish.set(r.id, r);
    await Promise.all([...toPublish.values()].map((r) => this.deps.publisher.settled(r)));
    this.seed(board.data, slot);
    this.deps.logger.info('backfill done', { openOnChain: accounts.length, inserted, published: toPublish.size, boardRoundId: current });
  }

  /** Rounds not stored because no payout rule reproduces them, newest last. */
  rejectedRounds(): readonly RejectedRound[] {
    return this.rejected;
  }

  /** The newest settled round id the board has moved past, or null before the board is read. */
  settledUpTo(): number | null {
    const board = this.tracker.board;
    return board === null ? null : board.roundId - 1;
  }

  /**
   * The stored form of a settled round account, with the rule that settled it, the
   * board's production cost and the motherlode pool it played for when watched live; null (counted, logged, kept for /readyz) when neither
   * payout rule reproduces its totals: such a round is never stored under a guess.
   */
  private toRound(decoded: RoundAccount, previous: PayoutRule | null, board: BoardAccount | null, now: Date, motherlodePool: number | null = null): Round | null {
    const inference = inferPayoutRule(decoded, previous);
    if (!inference.ok) {
      this.deps.metrics.ruleMismatches.inc();
      this.deps.logger.error('round matches no payout rule; not stored', { roundId: decoded.id, detail: inference.detail });
      const seen = this.rejected.findIndex((r) => r.roundId === decoded.id);
      if (seen >= 0) this.rejected.splice(seen, 1);
      this.rejected.push({ roundId: decoded.id, detail: inference.detail, at: now.toISOString() });
      if (this.rejected.length > REJECTED_KEPT) this.rejected.shift();
      return null;
    }
    const cost = board === null ? null : productionCost(board, decoded.layout);
    return toSettledRound(decoded, now, { payoutRule: inference.rule, productionCost: cost, motherlodePool });
  }

  private decode(account: RawAccount): RoundAccount | null {
    try {
      return decodeRound(account.data);
    } catch (error) {
      this.countDecodeError(account.pubkey, error);
      return null;
    }
  }

  private countDecodeError(pubkey: string, error: unknown): void {
    const code = isGridlabError(error) ? error.code : 'unknown';
    this.deps.metrics.decodeErrors.inc({ code });
    this.deps.logger.error('account rejected', { pubkey, code, err: error });
  }

  private onAccount(pubkey: string, data: Buffer, slot: number): void {
    if (this.stopped) return;
    let effects: TrackerEffects;
    try {
      if (pubkey === this.deps.pdas.board.toBase58()) effects = this.tracker.onBoard(decodeBoard(data), slot);
      else if (pubkey === this.deps.pdas.treasury.toBase58()) effects = this.tracker.onTreasury(decodeTreasury(data), slot);
      else effects = this.tracker.onRound(decodeRound(data), slot);
    } catch (error) {
      this.countDecodeError(pubkey, error);
      return;
    }
    this.feed.watch(this.watched());
    if (effects.snapshotChanged) this.publishSnapshot();
    if (effects.opened !== null) {
      const opened = { roundId: effects.opened.roundId, previousRoundId: effects.opened.previousRoundId, openedAt: this.deps.now().toISOString() };
      this.deps.publisher.opened(opened).catch((error: unknown) => this.deps.logger.warn('round opened not published', { err: error }));
    }
    if (effects.settle.length > 0) {
      this.queue.push(...effects.settle);
      this.drain();
    }
  }

  /** The board, the Treasury (its motherlode pool) and the board's current round once known. */
  private watched(): string[] {
    const board = this.tracker.board;
    const keys = [this.deps.pdas.board.toBase58(), this.deps.pdas.treasury.toBase58()];
    if (board !== null) keys.push(this.deps.pdas.round(board.roundId).toBase58());
    return keys;
  }

  private publishSnapshot(): void {
    const board = this.tracker.board;
    if (board === null) return;
    const inputs = { motherlodePool: this.tracker.treasury?.motherlode ?? null, evStakeLamports: this.deps.evStakeLamports };
    this.deps.publisher.snapshot(buildSnapshot(board, this.tracker.round, this.tracker.slot, this.prevRound, this.deps.slotSeconds, this.deps.now(), inputs));
    this.deps.metrics.snapshots.inc();
  }

  /** Settles queued rounds one at a time, in order; retries transient failures with backoff. */
  private drain(): void {
    if (this.draining !== null) return;
    this.draining = (async () => {
      while (this.queue.length > 0 && !this.stopped) {
        const id = this.queue[0]!;
        await this.withRetry(`settle round ${id}`, () => this.settle(id));
        this.queue.shift();
      }
    })().finally(() => {
      this.draining = null;
      if (this.queue.length > 0 && !this.stopped) this.drain();
    });
  }

  private async settle(id: number): Promise<void> {
    const account = await this.deps.rpc.getAccount(this.deps.pdas.round(id).toBase58());
    const previous = this.previousRule ?? (await this.deps.repo.ruleBefore(id));
    let round: Round | null;
    if (account === null) {
      // Closed before we saw it (the indexer was away longer than a round lives): from its transactions.
      round = await this.fromTransactions(id, previous);
    } else {
      const decoded = this.decode(account);
      if (decoded === null) return;
      // The board that first moved past the round holds the cost at its settlement (a later
      // one may hold the cost of a later round, when settling lags behind the chain).
      round = this.toRound(decoded, previous, this.tracker.boardPast(id) ?? this.tracker.board, this.deps.now(), this.tracker.poolOf(id));
    }
    if (round === null) return;
    this.previousRule = round.payoutRule;
    if (await this.deps.repo.insertSettled(round)) {
      this.deps.metrics.roundsSettled.inc();
      this.deps.metrics.lastStored.set(this.deps.now().getTime() / 1000);
    }
    await this.deps.publisher.settled(round);
    if (this.prevRound === null || round.id > this.prevRound.id) {
      this.prevRound = round;
      this.publishSnapshot();
    }
    this.deps.logger.info('round settled', { roundId: round.id, winningSquare: round.winningSquare });
  }

  /**
   * A settled round whose account is gone, rebuilt from its transactions; null (logged,
   * left to the history fill, which records why) when it cannot be. Throws on RPC failures
   * (retried).
   */
  private async fromTransactions(id: number, previous: PayoutRule | null): Promise<Round | null> {
    if (this.deps.history === undefined) {
      this.deps.logger.warn('settled round account not found; history from transactions is off, so it stays a gap', { roundId: id });
      return null;
    }
    const fetched = await this.deps.history.fetch(id, null);
    if (!fetched.result.ok) {
      this.deps.logger.warn('settled round account not found and its transactions do not rebuild it (yet)', { roundId: id, reason: fetched.result.reason, detail: fetched.result.detail });
      return null;
    }
    const stored = storedRound(fetched as typeof fetched & { result: { ok: true } }, previous, this.deps.now());
    if (!stored.ok) {
      this.deps.metrics.ruleMismatches.inc();
      this.deps.logger.error('round matches no payout rule; not stored', { roundId: id, detail: stored.detail });
      return null;
    }
    this.deps.metrics.historyRounds.inc();
    return stored.round;
  }

  /** Runs `fn` until it succeeds or the session stops; DecodeErrors are not retried. */
  private async withRetry(what: string, fn: () => Promise<void>): Promise<void> {
    let delay = 200;
    for (;;) {
      if (this.stopped) return;
      try {
        await fn();
        return;
      } catch (error) {
        if (error instanceof DecodeError && error.code !== 'board_missing') {
          this.countDecodeError(what, error);
          return;
        }
        if (isGridlabError(error) && error.kind === 'chain') this.deps.metrics.rpcErrors.inc();
        else this.deps.metrics.storeErrors.inc();
        this.deps.logger.warn(`${what} failed; retrying`, { err: error, retryInMs: delay });
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.retryTimer = setTimeout(resolve, delay);
        });
        delay = Math.min(MAX_RETRY_MS, delay * 2);
      }
    }
  }
}
