import type { MinerRows } from '@gridlab/chain';
import type { MinerDeployed, Round, RoundMiners } from '@gridlab/contracts';
import type { Logger } from '@gridlab/logger';
import { ledgerRows, type FetchedRound } from '@gridlab/history';
import type { IndexerMetrics } from './metrics';

/** What the ledger follower reads and writes (PostgreSQL, the chain, NATS in production). */
export interface MinerLedgerPorts {
  /** Stored rounds in [fromId, toId] whose miners are not stored, newest first, at most `limit`, none of `skip`. */
  pending(fromId: number, toId: number, limit: number, skip?: readonly number[]): Promise<Round[]>;
  /** The oldest and newest stored round ids (null: none). */
  storedRange(): Promise<{ readonly first: number; readonly last: number } | null>;
  /** The round's transactions, read with the ledger on. */
  fetch(id: number): Promise<FetchedRound>;
  /** Stores a round's miners; false when they were already. */
  write(round: Round, miners: MinerRows): Promise<boolean>;
  publish(miners: RoundMiners): Promise<void>;
  /** Adds the rows written without their rollups (history) to them; rows added. */
  fold(): Promise<number>;
  /** Packs closed blocks of the ledger (rows not yet folded stay); rows packed. */
  compact(newestRound: number): Promise<number>;
  expireHours(now: Date): Promise<number>;
  /** Sums the top miners of every window again. */
  refreshTops(now: Date): Promise<void>;
  /** The live round's deploys after `after` (a signature; null: from the round's first), oldest first, and the newest signature seen. */
  liveDeploys(roundId: number, after: string | null): Promise<{ readonly deploys: readonly MinerDeployed[]; readonly newest: string | null }>;
  publishDeploy(deploy: MinerDeployed): void;
}

export interface MinerLedgerOptions {
  /** Rounds read per pass (each is a few RPC calls). */
  readonly batch: number;
  /** Ids the backfill walks down per pass. */
  readonly backfillSpan: number;
  /** How often closed blocks are packed and old hourly rollups dropped. */
  readonly maintainEveryMs: number;
  /** How often the top miners of each window are summed again. */
  readonly topsEveryMs: number;
  readonly now: () => Date;
}

/** A round whose transactions do not rebuild it yet (not finalized, or refused): tried again after a back-off. */
interface Deferred {
  readonly attempts: number;
  readonly at: number;
}
const MAX_DEFER_MS = 10 * 60_000;

/**
 * Every stored round's miners, from its transactions: new rounds as they settle, then
 * the rounds stored before (history, or before the ledger existed), newest first. The
 * history fill writes the miners of the rounds it rebuilds itself (it has their
 * transactions); this catches the rest. Also reads the live round's deploys as their
 * transactions appear and publishes each.
 */
export class MinerLedgerFollower {
  /** Where the walk down the stored history has reached (the next pass looks below it); null: not started. */
  private backfillBelow: number | null = null;
  /** The lowest id above every round already looked for from the top; null: not started. */
  private freshFrom: number | null = null;
  private readonly deferred = new Map<number, Deferred>();
  private lastMaintained = 0;
  private lastTops = 0;
  private live: { roundId: number; after: string | null } | null = null;

  constructor(
    private readonly ports: MinerLedgerPorts,
    private readonly metrics: IndexerMetrics,
    private readonly logger: Logger,
    private readonly options: MinerLedgerOptions,
  ) {}

  /** One pass: the newest rounds first, then a span of older ones; then upkeep when due. Throws on store or RPC failures (the caller retries). */
  async pass(): Promise<void> {
    const range = await this.ports.storedRange();
    if (range === null) return;
    this.freshFrom ??= range.last + 1;
    this.backfillBelow ??= this.freshFrom;
    const skip = [...this.deferred.keys()];
    // New rounds since the last pass, newest first; the window closes once a pass finds fewer than it reads.
    const fresh = await this.ports.pending(this.freshFrom, range.last, this.options.batch, skip);
    await this.readAll(fresh);
    if (fresh.length < this.options.batch) this.freshFrom = range.last + 1;
    if (this.backfillBelow > range.first) {
      const from = Math.max(range.first, this.backfillBelow - this.options.backfillSpan);
      const older = await this.ports.pending(from, this.backfillBelow - 1, this.options.batch, skip);
      await this.readAll(older);
      // The span is done once none is left in it but deferred ones (looked for again on later passes).
      if (older.length < this.options.batch) this.backfillBelow = from;
      else this.backfillBelow = older[older.length - 1]!.id;
    }
    await this.retryDeferred();
    await this.maintain(range.last);
  }

  private async readAll(rounds: readonly Round[]): Promise<void> {
    for (const round of rounds) await this.read(round);
  }

  private async retryDeferred(): Promise<void> {
    const now = this.options.now().getTime();
    const due = [...this.deferred.entries()].filter(([, d]) => d.at <= now).map(([id]) => id);
    if (due.length === 0) return;
    const rounds = await Promise.all(due.slice(0, this.options.batch).map((id) => this.ports.pending(id, id, 1)));
    for (const [i, found] of rounds.entries()) {
      if (found.length === 0) this.deferred.delete(due[i]!);
      else await this.read(found[0]!);
    }
  }

  private async read(round: Round): Promise<void> {
    const fetched = await this.ports.fetch(round.id);
    const miners = ledgerRows(fetched, round);
    if (miners === null) {
      const reason = fetched.result.ok ? 'not read' : fetched.result.reason;
      const attempts = (this.deferred.get(round.id)?.attempts ?? 0) + 1;
      this.deferred.set(round.id, { attempts, at: this.options.now().getTime() + Math.min(MAX_DEFER_MS, 2_000 * 2 ** attempts) });
      this.metrics.minerRoundsDeferred.inc({ reason });
      if (attempts >= 3) this.logger.warn("a round's transactions do not give its miners yet; trying again later", { roundId: round.id, reason, attempts });
      return;
    }
    this.deferred.delete(round.id);
    if (await this.ports.write(round, miners)) {
      this.metrics.minerRows.inc(miners.length);
      await this.ports.publish({ roundId: round.id, count: miners.length, miners: miners.rows() });
    }
  }

  private async maintain(newest: number): Promise<void> {
    const now = this.options.now();
    if (now.getTime() - this.lastTops >= this.options.topsEveryMs) {
      await this.ports.refreshTops(now);
      this.lastTops = now.getTime();
    }
    if (now.getTime() - this.lastMaintained < this.options.maintainEveryMs) return;
    // The history fill folds what it writes; this takes what a fill that failed or stopped left, so it counts and can be packed.
    const folded = await this.ports.fold();
    const packed = await this.ports.compact(newest);
    const expired = await this.ports.expireHours(now);
    this.lastMaintained = now.getTime();
    if (folded > 0 || packed > 0 || expired > 0) this.logger.info('miner ledger packed', { rowsFolded: folded, rowsPacked: packed, hourRowsExpired: expired });
  }

  /** Publishes the live round's deploys that appeared since the last call. */
  async followLive(roundId: number | null): Promise<void> {
    if (roundId === null) return;
    if (this.live === null || this.live.roundId !== roundId) this.live = { roundId, after: null };
    const { deploys, newest } = await this.ports.liveDeploys(roundId, this.live.after);
    for (const d of deploys) this.ports.publishDeploy(d);
    if (newest !== null) this.live = { roundId, after: newest };
  }
}
