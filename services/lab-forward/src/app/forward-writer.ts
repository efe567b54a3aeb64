import { isFullyKnown, type KnownRound, type Round } from '@gridlab/contracts';
import type { ActiveSession, PredictionRow, SettlementRow, StatsRow, StopRow } from '@gridlab/lab-store';
import type { Logger } from '@gridlab/logger';
import { History, PARIMUTUEL, PAYOUT_REVISION, SPEC_BIG_ROUND_RULE, createRunner, normalizeDsl, type BigRoundRule, type Decision, type Runner } from '@gridlab/strategy';
import type { ForwardLedger, ForwardTx, StoredRounds, WriterEvents } from './ports';
import { addRound, enterSession, figuresFromRow, statsRow, type Figures } from '../domain/figures';
import { repricedHit, repricedStats } from '../domain/reprice';

export interface WriterOptions {
  readonly minRoundsToQualify: number;
  readonly leaderboardSize: number;
  /** The big_round rule of the `rounds_since_big_round` filter (EVENT_BIG_ROUND_*, as event-log's; default SPEC 6). */
  readonly bigRoundRule?: BigRoundRule;
  readonly batchSize?: number;
  readonly now?: () => Date;
  /** Aborted at shutdown: the writer stops between two transactions. */
  readonly signal?: AbortSignal;
}

/** One active session: its runner (positioned at the next round) and the strategy's figures. */
interface Session {
  readonly id: string;
  readonly seq: number;
  readonly runner: Runner;
  readonly figures: Figures;
}

const HISTORY_PAGE = 10_000;

/**
 * The single forward-test writer (SPEC 7.10). PostgreSQL is the source: it settles the
 * stored rounds after its position one at a time, each in one transaction with the
 * predictions, the figures, the stops, the position and the leaderboard; then records the
 * decisions of every active session for the next round. Bus messages only say "look now".
 *
 * One shared History holds every stored round; each active session has a runner (the same
 * engine as a backtest) positioned at the next round. Runner state is not serialized: it
 * is a pure function of the DSL, the session's first round and the stored rounds, so on
 * start each runner is rebuilt by replaying its session (millions of rounds a second) and
 * continues exactly where it stopped. Rounds that settled while the writer was down are
 * settled on restart with decisions from the same pre-round data, marked late.
 */
export class ForwardWriter {
  private history: History;
  private readonly sessions = new Map<string, Session>();
  private settledThrough = 0;
  /** The round whose recorded predictions `recorded` lists (null: unknown, ask the store). */
  private recordedRound: number | null = null;
  private recorded = new Set<string>();
  private chain: Promise<void> = Promise.resolve();
  private readonly batchSize: number;
  private readonly now: () => Date;

  constructor(
    private readonly store: ForwardLedger,
    private readonly rounds: StoredRounds,
    private readonly events: WriterEvents,
    private readonly logger: Logger,
    private readonly options: WriterOptions,
  ) {
    this.batchSize = options.batchSize ?? 1000;
    this.now = options.now ?? (() => new Date());
    this.history = this.newHistory();
  }

  /** An empty History judging big rounds by the configured rule. */
  private newHistory(): History {
    const history = new History();
    history.bigRoundRule = this.options.bigRoundRule ?? SPEC_BIG_ROUND_RULE;
    return history;
  }

  /** Last round settled (committed). */
  get position(): number {
    return this.settledThrough;
  }

  /** Restores the committed position and loads the stored history up to it. */
  async load(): Promise<void> {
    let through = await this.store.settledThrough();
    // First start: nothing before the newest stored round concerns any strategy.
    if (through === null) through = await this.store.initProgress((await this.rounds.latestId()) ?? 0);
    const history = this.newHistory();
    for (let from = 0; ; ) {
      const page = await this.rounds.getRounds({ fromId: from, toId: through, limit: HISTORY_PAGE });
      // A partly known round (history before 2025-12-30) has no per-square figures to replay: the Lab passes over it.
      history.appendMany(page.filter(isFullyKnown));
      if (page.length < HISTORY_PAGE) break;
      from = page[page.length - 1]!.id + 1;
    }
    this.history = history;
    this.settledThrough = through;
    this.sessions.clear();
    this.recordedRound = null;
    this.recorded = new Set();
    if ((await this.store.payoutRevision()) !== PAYOUT_REVISION) await this.reprice();
  }

  /**
   * Re-prices what an earlier payout arithmetic settled (domain/reprice.ts): every settled
   * parimutuel hit's PnL, then the figures of the strategies it changed and the
   * leaderboard, and records the revision, in one transaction.
   */
  private async reprice(): Promise<void> {
    const h = this.history;
    await this.store.tx(async (tx) => {
      const changed: { strategyId: string; roundId: number; pnlLamports: number }[] = [];
      for (const hit of await tx.settledHits()) {
        const i = h.lowerBound(hit.roundId);
        if (i >= h.length || h.ids[i] !== hit.roundId || h.rule[i] !== PARIMUTUEL || h.winning[i]! < 0) continue;
        const pnl = repricedHit(hit, { winningSquare: h.winning[i]!, deployedOnWinner: h.winnerDeployed[i]!, deployedTotal: h.sumDeployed[i]! });
        if (pnl !== hit.pnlLamports) changed.push({ strategyId: hit.strategyId, roundId: hit.roundId, pnlLamports: pnl });
      }
      await tx.repricePredictions(changed);
      const ids = [...new Set(changed.map((c) => c.strategyId))];
      const bets = new Map<string, { roundId: number; squares: number; stakeLamports: number; pnlLamports: number }[]>();
      for (const b of await tx.settledBets(ids)) {
        const list = bets.get(b.strategyId);
        if (list === undefined) bets.set(b.strategyId, [b]);
        else list.push(b);
      }
      const stats = await tx.statsOf(ids);
      await tx.saveStats(stats.map((s) => repricedStats(s.stats, bets.get(s.stats.strategyId) ?? [], s.sessionStartRoundId)));
      if (changed.length > 0) await tx.regenerateLeaderboard(this.options.minRoundsToQualify, this.options.leaderboardSize, this.now());
      await tx.savePayoutRevision(PAYOUT_REVISION);
      this.logger.info('forward figures re-priced to the program\'s payout arithmetic', { revision: PAYOUT_REVISION, predictions: changed.length, strategies: ids.length });
    });
  }

  /** Resolves once no catch-up is running (after the signal aborted, none starts). */
  idle(): Promise<void> {
    return this.chain.catch(() => undefined);
  }

  /** Schedules a catch-up after any running one; resolves when it is done. */
  poke(): Promise<void> {
    this.chain = this.chain.then(
      () => this.catchUp(),
      () => this.catchUp(),
    );
    return this.chain;
  }

  private get stopping(): boolean {
    return this.options.signal?.aborted === true;
  }

  private async catchUp(): Promise<void> {
    if (this.stopping) return;
    try {
      while (!this.stopping && (await this.settleBatch()));
      if (!this.stopping) await this.recordNext();
    } catch (error) {
      if (this.stopping) return;
      // Runners and figures may be ahead of what committed: start again from the database.
      this.logger.warn('forward catch-up failed; reloading the committed state', { err: error });
      await this.load();
      throw error;
    }
  }

  private async settleBatch(): Promise<boolean> {
    const batch = await this.rounds.contiguousAfter(this.settledThrough, this.batchSize);
    let next = batch.length === 0 ? 0 : await this.skipUncovered(batch);
    for (; next < batch.length && !this.stopping; next++) {
      const round = batch[next]!;
      await (isFullyKnown(round) ? this.settle(round) : this.passOver(round));
    }
    return batch.length > 0;
  }

  /**
   * Moves past a partly known round (history before 2025-12-30, whose per-square figures
   * the chain does not show): no strategy can be priced on it, so its pending predictions
   * never settle, as for a missing round.
   */
  private async passOver(round: Round): Promise<void> {
    await this.store.tx(async (tx) => {
      this.checkPosition(tx);
      await tx.dropUnsettledBefore(round.id + 1);
      await tx.saveProgress(round.id);
    });
    this.settledThrough = round.id;
    this.recordedRound = null;
    this.recorded = new Set();
  }

  /**
   * Advances the position in one transaction over the leading rounds of `batch` that no
   * active session covers (every session starts after them), so a first start beside an
   * indexer still backfilling, or hours without strategies, cost one commit rather than
   * one per round. No session can start inside the batch: a new one starts after the
   * newest stored round. Returns how many rounds it took.
   */
  private async skipUncovered(batch: readonly Round[]): Promise<number> {
    let n = 0;
    await this.store.tx(async (tx) => {
      this.checkPosition(tx);
      let firstStart = Infinity;
      for (const a of await tx.activeSessions()) firstStart = Math.min(firstStart, a.sessionStartRoundId);
      while (n < batch.length && batch[n]!.id < firstStart) n++;
      if (n === 0) return;
      // Predictions of rounds no active session covers can only be leftovers: none settles.
      await tx.dropUnsettledBefore(batch[n - 1]!.id + 1);
      await tx.saveProgress(batch[n - 1]!.id);
    });
    if (n === 0) return 0;
    this.history.appendMany(batch.slice(0, n).filter(isFullyKnown));
    this.settledThrough = batch[n - 1]!.id;
    this.recordedRound = null;
    this.recorded = new Set();
    return n;
  }

  /** Settles one round for every session that covers it, in one transaction. */
  private async settle(round: KnownRound): Promise<void> {
    const started = performance.now();
    const at = this.now();
    const stopped: string[] = [];
    let count = 0;
    await this.store.tx(async (tx) => {
      this.checkPosition(tx);
      await this.sync(tx, round.id);
      // Ids skipped as missing: their pending predictions will never settle.
      if (round.id > this.settledThrough + 1) await tx.dropUnsettledBefore(round.id);
      const recorded = this.recordedRound === round.id ? this.recorded : await tx.recordedFor(round.id);
      this.history.append(round);
      const rows: SettlementRow[] = [];
      const figures: StatsRow[] = [];
      const stops: StopRow[] = [];
      for (const session of this.sessions.values()) {
        const o = session.runner.step();
        const d = o.decision;
        addRound(
          session.figures,
          { roundId: o.roundId, winningSquare: o.winningSquare, bet: d.bet, squares: d.squares.length, stakeLamports: o.stakeLamports, pnlLamports: o.pnlLamports, hit: o.hit, oreEarned: o.oreEarned, oreValueLamports: o.oreValueLamports },
          !recorded.has(session.id),
        );
        rows.push({ strategyId: session.id, squares: d.squares, stakes: d.stakesLamports, reason: d.reason, stakeLamports: o.stakeLamports, pnlLamports: o.pnlLamports, hit: o.hit });
        figures.push(statsRow(session.figures));
        if (o.exit !== null) {
          stops.push({ strategyId: session.id, reason: o.exit });
          stopped.push(session.id);
        }
      }
      count = rows.length;
      await tx.settle(round.id, round.winningSquare, at, rows);
      await tx.saveStats(figures);
      await tx.stop(round.id, at, stops);
      await tx.saveProgress(round.id);
      await tx.regenerateLeaderboard(this.options.minRoundsToQualify, this.options.leaderboardSize, at);
    });
    this.settledThrough = round.id;
    for (const id of stopped) this.sessions.delete(id);
    this.recordedRound = null;
    this.recorded = new Set();
    this.events.settled(round.id, count, performance.now() - started);
  }

  /**
   * Records every active session's decision for the round after the last settled one
   * (the round the board has open), unless it is recorded already.
   */
  private async recordNext(): Promise<void> {
    const roundId = this.settledThrough + 1;
    const started = performance.now();
    const added: { strategyId: string; decision: Decision }[] = [];
    await this.store.tx(async (tx) => {
      this.checkPosition(tx);
      await this.sync(tx, roundId);
      if (this.recordedRound !== roundId) {
        this.recorded = await tx.recordedFor(roundId);
        this.recordedRound = roundId;
      }
      const rows: PredictionRow[] = [];
      for (const session of this.sessions.values()) {
        if (this.recorded.has(session.id)) continue;
        const d = session.runner.decide();
        rows.push({ strategyId: session.id, squares: d.squares, stakes: d.stakesLamports, reason: d.reason });
        added.push({ strategyId: session.id, decision: d });
      }
      await tx.record(roundId, this.now(), rows);
    });
    for (const { strategyId } of added) this.recorded.add(strategyId);
    if (added.length > 0) this.events.recorded(roundId, added, performance.now() - started);
  }

  private checkPosition(tx: ForwardTx): void {
    if (tx.settledThrough !== this.settledThrough) {
      throw new Error(`forward progress is ${String(tx.settledThrough)} in the store but ${this.settledThrough} here (a second writer?)`);
    }
  }

  /**
   * Brings the sessions in line with the active strategies whose session covers
   * `nextRoundId`: ended or restarted sessions are dropped, new ones get a runner that
   * replays the session's settled rounds (none for a session that starts now).
   */
  private async sync(tx: ForwardTx, nextRoundId: number): Promise<void> {
    // Owners whose subscription ended stop being forward-tested; renewed ones resume.
    const lapse = await tx.followSubscriptions(this.now());
    if (lapse.stopped + lapse.resumed > 0) this.logger.info('strategies follow their owners\' subscriptions', lapse);
    const active = await tx.activeSessions();
    const wanted = new Map<string, ActiveSession>();
    for (const a of active) if (a.sessionStartRoundId <= nextRoundId) wanted.set(a.id, a);
    for (const [id, s] of this.sessions) {
      if (wanted.get(id)?.sessionSeq !== s.seq) this.sessions.delete(id);
    }
    const missing = [...wanted.keys()].filter((id) => !this.sessions.has(id));
    if (missing.length === 0) return;
    const h = this.history;
    for (const state of await tx.sessionStates(missing)) {
      // Incremental state only: precomputed rankings would keep up to ~25 bytes per stored
      // round per ranking in this long-lived process for a one-off replay.
      const runner = createRunner(normalizeDsl(state.dsl), h, { precomputedRankings: false });
      runner.seek(h.lowerBound(state.sessionStartRoundId));
      runner.runTo(h.length);
      const figures = figuresFromRow(state.stats);
      enterSession(figures, state.sessionSeq);
      this.sessions.set(state.id, { id: state.id, seq: state.sessionSeq, runner, figures });
    }
  }
}
