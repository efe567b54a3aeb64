import {
  MAX_STRATEGIES_PER_OWNER,
  type ForwardStats,
  type Leaderboard,
  type LeaderboardDetail,
  type StrategyCreateRequest,
  type StrategyDeleteReply,
  type StrategyDetailReply,
  type StrategyIdRequest,
  type StrategyListReply,
  type StrategyReply,
  type StrategyUpdateRequest,
} from '@gridlab/contracts';
import { ConflictError, NotFoundError } from '@gridlab/errors';
import type { StrategyRow } from '@gridlab/lab-store';
import { normalizeDsl } from '@gridlab/strategy';
import type { StrategyRecords } from './ports';
import {
  sessionStartRound,
  strategyName,
  toForwardStats,
  toLeaderboardDetail,
  toLeaderboardEntry,
  toListItem,
  toWireStrategy,
} from '../domain/records';

export interface CommandPorts {
  readonly records: StrategyRecords;
  readonly now: () => Date;
  readonly newId: () => string;
}

const notFound = (id: string): NotFoundError => new NotFoundError('strategy_not_found', `strategy ${id} does not exist`);

/**
 * Strategy CRUD, forward stats and the leaderboard (SPEC 7.10). The caller's subscriber
 * decides the owner (billing's wallet key for it); another owner's strategy is reported
 * as not existing. Session starts and ends run while holding the writer's progress FOR
 * SHARE, so they fall between two settled rounds.
 */
export class StrategyCommands {
  constructor(
    private readonly ports: CommandPorts,
    private readonly minRoundsToQualify: number,
  ) {}

  async create(req: StrategyCreateRequest): Promise<StrategyReply> {
    const name = strategyName(req.name);
    const dsl = normalizeDsl(req.dsl, '/dsl') as unknown as Record<string, unknown>;
    const owner = await this.owner(req.subscriberId);
    return this.ports.records.session(async (tx) => {
      await tx.lockOwner(owner);
      if ((await tx.countOwned(owner)) >= MAX_STRATEGIES_PER_OWNER) {
        throw new ConflictError('strategy_limit_reached', `an owner may hold at most ${MAX_STRATEGIES_PER_OWNER} strategies; delete one first`);
      }
      const now = this.ports.now();
      const row: StrategyRow = {
        id: this.ports.newId(),
        owner,
        name,
        dsl,
        active: true,
        sessionSeq: 1,
        sessionStartRoundId: sessionStartRound(tx.settledThrough, tx.latestStored),
        stoppedReason: null,
        stoppedAtRoundId: null,
        createdAt: now,
        updatedAt: now,
      };
      await tx.insert(row);
      return { strategy: toWireStrategy(row) };
    });
  }

  async list(req: { readonly subscriberId: string }): Promise<StrategyListReply> {
    const owner = await this.owner(req.subscriberId);
    const rows = await this.ports.records.list(owner);
    return { count: rows.length, strategies: rows.map((r) => toListItem(r.strategy, r.stats)) };
  }

  async get(req: StrategyIdRequest): Promise<StrategyDetailReply> {
    const owner = await this.owner(req.subscriberId);
    const row = await this.ports.records.find(owner, req.id);
    if (row === null) throw notFound(req.id);
    const counts = await this.ports.records.predictionCounts(row.id);
    return { strategy: toWireStrategy(row), predictionCount: counts.total };
  }

  /**
   * PATCH: `name` and/or `active`. active=true on an inactive strategy starts a new
   * session (its stop is cleared); active=false ends the session and drops the
   * prediction recorded for the round in play; the record so far is kept. Neither
   * given: a no-op that answers the strategy as it is (nothing written, updatedAt kept).
   */
  async update(req: StrategyUpdateRequest): Promise<StrategyReply> {
    const name = req.name === undefined ? undefined : strategyName(req.name);
    const owner = await this.owner(req.subscriberId);
    return this.ports.records.session(async (tx) => {
      const row = await tx.findForUpdate(owner, req.id);
      if (row === null) throw notFound(req.id);
      if (name === undefined && req.active === undefined) return { strategy: toWireStrategy(row) };
      let next: StrategyRow = { ...row, name: name ?? row.name, updatedAt: this.ports.now() };
      if (req.active === true && !row.active) {
        next = {
          ...next,
          active: true,
          sessionSeq: row.sessionSeq + 1,
          sessionStartRoundId: sessionStartRound(tx.settledThrough, tx.latestStored),
          stoppedReason: null,
          stoppedAtRoundId: null,
        };
      } else if (req.active === false && row.active) {
        next = { ...next, active: false };
        await tx.dropPending(row.id);
      }
      await tx.update(next);
      return { strategy: toWireStrategy(next) };
    });
  }

  /**
   * DELETE, recoverably: the strategy disappears from reads, the forward test, the board
   * and the owner's cap at once, and restore() brings it back until the purge removes it
   * for good (LAB_DELETED_RETENTION_DAYS after the deletion).
   */
  async delete(req: StrategyIdRequest): Promise<StrategyDeleteReply> {
    const owner = await this.owner(req.subscriberId);
    return this.ports.records.session(async (tx) => {
      const row = await tx.findForUpdate(owner, req.id);
      if (row === null) throw notFound(req.id);
      await tx.delete(row, this.ports.now());
      return { ok: true as const };
    });
  }

  /**
   * Brings back the owner's deleted, unpurged strategy with its record. One whose
   * session was running when it was deleted starts a new session (as PATCH active=true
   * would); the rounds in between are not in its record. Counts toward the cap again.
   */
  async restore(req: StrategyIdRequest): Promise<StrategyReply> {
    const owner = await this.owner(req.subscriberId);
    return this.ports.records.session(async (tx) => {
      await tx.lockOwner(owner);
      const found = await tx.findDeletedForUpdate(owner, req.id);
      if (found === null) throw new NotFoundError('strategy_not_found', `no deleted strategy ${req.id} to restore (never deleted, or already purged)`);
      if ((await tx.countOwned(owner)) >= MAX_STRATEGIES_PER_OWNER) {
        throw new ConflictError('strategy_limit_reached', `an owner may hold at most ${MAX_STRATEGIES_PER_OWNER} strategies; delete one first`);
      }
      const now = this.ports.now();
      let row: StrategyRow = { ...found.row, updatedAt: now };
      if (found.wasActive) {
        row = {
          ...row,
          active: true,
          sessionSeq: row.sessionSeq + 1,
          sessionStartRoundId: sessionStartRound(tx.settledThrough, tx.latestStored),
          stoppedReason: null,
          stoppedAtRoundId: null,
        };
      }
      await tx.restore(row);
      return { strategy: toWireStrategy(row) };
    });
  }

  async forward(req: StrategyIdRequest): Promise<ForwardStats> {
    const owner = await this.owner(req.subscriberId);
    const found = await this.ports.records.forward(owner, req.id);
    if (found === null) throw notFound(req.id);
    return toForwardStats(found.strategy, found.stats, found.pending, found.series);
  }

  async leaderboard(): Promise<Leaderboard> {
    const board = await this.ports.records.leaderboard();
    return {
      generatedAt: board.generatedAt.toISOString(),
      minRoundsToQualify: this.minRoundsToQualify,
      count: board.entries.length,
      entries: board.entries.map(toLeaderboardEntry),
    };
  }

  async leaderboardEntry(req: { readonly id: string }): Promise<LeaderboardDetail> {
    const found = await this.ports.records.leaderboardEntry(req.id);
    if (found === null) throw new NotFoundError('strategy_not_found', `strategy ${req.id} is not on the leaderboard`);
    return toLeaderboardDetail(found.entry, found.series);
  }

  private async owner(subscriberId: string): Promise<string> {
    const owner = await this.ports.records.ownerOf(subscriberId);
    if (owner === null) throw new NotFoundError('subscriber_not_found', 'the subscriber of this key is unknown');
    return owner;
  }
}
