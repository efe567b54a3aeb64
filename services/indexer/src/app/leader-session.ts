import { OrePdas, decodeBoard, decodeRound, layout, toSettledRound, type RoundAccount } from '@gridlab/chain';
import type { Round } from '@gridlab/contracts';
import { DecodeError, isGridlabError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { RoundRepository } from '@gridlab/rounds-store';
import bs58 from 'bs58';
import { AccountFeed } from '../adapters/chain/account-feed';
import type { RawAccount, SolanaRpc } from '@gridlab/chain';
import type { RoundPublisher } from '../adapters/nats/round-publisher';
import { buildSnapshot } from '../domain/snapshot';
import { RoundTracker, type TrackerEffects } from '../domain/tracker';
import type { IndexerMetrics } from './metrics';

export interface SessionDeps {
  readonly rpc: SolanaRpc;
  readonly wsUrl: string;
  readonly pdas: OrePdas;
  readonly repo: RoundRepository;
  readonly publisher: RoundPublisher;
  readonly metrics: IndexerMetrics;
  readonly logger: Logger;
  readonly pollIntervalMs: number;
  readonly slotSeconds: number;
  readonly now: () => Date;
}

const ROUND_DISCRIMINATOR_B58 = bs58.encode([layout.ROUND_DISCRIMINATOR]);
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
  private readonly feed: AccountFeed;
  private readonly queue: number[] = [];
  private prevRound: Round | null = null;
  private draining: Promise<void> | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: SessionDeps) {
    this.feed = new AccountFeed({
      wsUrl: deps.wsUrl,
      rpc: deps.rpc,
      pollIntervalMs: deps.pollIntervalMs,
      logger: deps.logger.child({ component: 'feed' }),
      counters: { wsReconnect: () => deps.metrics.wsReconnects.inc(), rpcError: () => deps.metrics.rpcErrors.inc() },
      onUpdate: (pubkey, data, slot) => this.onAccount(pubkey, data, slot),
    });
  }

  async start(): Promise<void> {
    await this.withRetry('backfill', () => this.backfill());
    const latest = await this.deps.repo.latestId();
    if (latest !== null) this.prevRound = (await this.deps.repo.getRounds({ fromId: latest, toId: latest }))[0] ?? null;
    this.feed.watch([this.deps.pdas.board.toBase58()]);
    this.feed.start();
  }

  /**
   * Feeds the board seen by the backfill to the tracker, so every round the board moves
   * past from here on is settled by the live path, however fast rounds go.
   */
  private seed(boardData: Buffer, slot: number): void {
    this.onAccount(this.deps.pdas.board.toBase58(), boardData, slot);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.feed.stop();
    await this.draining;
  }

  /** Every round account still open on chain that is not stored yet, in bulk. */
  private async backfill(): Promise<void> {
    const { slot, accounts: [board] } = await this.deps.rpc.getMultipleAccounts([this.deps.pdas.board.toBase58()]);
    if (board === null || board === undefined) throw new DecodeError('board_missing', 'the board account does not exist');
    const current = decodeBoard(board.data).roundId;
    const accounts = [
      ...(await this.deps.rpc.getProgramAccounts(this.deps.pdas.programId.toBase58(), layout.ROUND_LEN_V3, ROUND_DISCRIMINATOR_B58)),
      ...(await this.deps.rpc.getProgramAccounts(this.deps.pdas.programId.toBase58(), layout.ROUND_LEN_V3_LEGACY, ROUND_DISCRIMINATOR_B58)),
      // v4 rounds are fetched only to be reported (decode rejects them by name).
      ...(await this.deps.rpc.getProgramAccounts(this.deps.pdas.programId.toBase58(), layout.ROUND_LEN_V4, ROUND_DISCRIMINATOR_B58)),
    ];
    const settled: Round[] = [];
    const now = this.deps.now();
    for (const account of accounts) {
      const decoded = this.decode(account);
      if (decoded !== null && decoded.id < current) settled.push(toSettledRound(decoded, now));
    }
    const stored = await this.deps.repo.storedIds(settled.map((r) => r.id));
    const missing = settled.filter((r) => !stored.has(r.id)).sort((a, b) => a.id - b.id);
    const inserted = await this.deps.repo.insertMany(missing);
    this.deps.metrics.roundsSettled.inc(inserted);
    const latest = await this.deps.repo.latestId();
    const recent = latest === null ? [] : await this.deps.repo.getRounds({ fromId: Math.max(0, latest - REPUBLISH_ON_TAKEOVER + 1), toId: latest });
    const toPublish = new Map<number, Round>();
    for (const r of [...missing, ...recent]) toPublish.set(r.id, r);
    await Promise.all([...toPublish.values()].map((r) => this.deps.publisher.settled(r)));
    this.seed(board.data, slot);
    this.deps.logger.info('backfill done', { openOnChain: accounts.length, inserted, published: toPublish.size, boardRoundId: current });
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
      effects = pubkey === this.deps.pdas.board.toBase58() ? this.tracker.onBoard(decodeBoard(data), slot) : this.tracker.onRound(decodeRound(data), slot);
    } catch (error) {
      this.countDecodeError(pubkey, error);
      return;
    }
    const board = this.tracker.board;
    if (board !== null) this.feed.watch([this.deps.pdas.board.toBase58(), this.deps.pdas.round(board.roundId).toBase58()]);
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

  private publishSnapshot(): void {
    const board = this.tracker.board;
    if (board === null) return;
    this.deps.publisher.snapshot(buildSnapshot(board, this.tracker.round, this.tracker.slot, this.prevRound, this.deps.slotSeconds, this.deps.now()));
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
    if (account === null) {
      // Closed before we saw it: never invent it; the gap is reported.
      this.deps.logger.warn('settled round account not found', { roundId: id });
      return;
    }
    const decoded = this.decode(account);
    if (decoded === null) return;
    const round = toSettledRound(decoded, this.deps.now());
    if (await this.deps.repo.insertSettled(round)) this.deps.metrics.roundsSettled.inc();
    await this.deps.publisher.settled(round);
    if (this.prevRound === null || round.id > this.prevRound.id) {
      this.prevRound = round;
      this.publishSnapshot();
    }
    this.deps.logger.info('round settled', { roundId: round.id, winningSquare: round.winningSquare });
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
        await new Promise<void>((resolve) => (this.retryTimer = setTimeout(resolve, delay)));
        delay = Math.min(MAX_RETRY_MS, delay * 2);
      }
    }
  }
}
