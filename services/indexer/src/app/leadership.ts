import { isGridlabError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { GapRange } from '@gridlab/rounds-store';
import type { ChainVerdict } from '../domain/chain-identity';
import type { HistoryFill } from './history-fill';
import type { LeaderSession } from './leader-session';
import type { MinerLedgerFollower } from './miner-ledger';
import type { IndexerMetrics } from './metrics';
import type { HeldLock, RoundStore } from './ports';

/** `refused`: the RPC serves another chain than the stored rounds come from. */
export type Role = 'leader' | 'standby' | 'stopped' | 'refused';

/** What leadership needs once the indexer runs on its connections. */
export interface LeadershipPorts {
  /** The chain the RPC serves against the recorded identity; throws when the RPC or PostgreSQL fails. */
  readonly checkChain: () => Promise<ChainVerdict>;
  /** Waits for the leader lock; null when `signal` aborts first. `onLost` is told when the lock is lost later. */
  readonly holdLock: (signal: AbortSignal, onLost: () => void) => Promise<HeldLock | null>;
  /** A leader session (not started) on the chain and the store. */
  readonly openSession: () => LeaderSession;
  /** The history fill (not started) of a session settled up to `settledUpTo`; null when history from transactions is off. */
  readonly openHistoryFill: (settledUpTo: number | null) => Promise<HistoryFill | null>;
  readonly rounds: Pick<RoundStore, 'findGaps' | 'writeLines'>;
  /** Every settled round's miners and the live round's deploys; null when the ledger is off. */
  readonly ledger: MinerLedgerFollower | null;
  readonly metrics: IndexerMetrics;
  readonly logger: Logger;
}

export interface LeadershipTiming {
  /** How often the chain's identity is checked (and a refused or standby indexer retries). */
  readonly chainCheckMs: number;
  readonly gapCheckMs: number;
  /** How often the leader looks for stored rounds without their dump line. */
  readonly linesIntervalMs: number;
  /** Rounds per line-writing transaction. */
  readonly lineBatch: number;
  /** How often the leader reads new rounds' miners and the live round's deploys. */
  readonly ledgerIntervalMs: number;
}

/**
 * The indexer's part in the election: once started it competes for the leader lock, but
 * only while the RPC serves the recorded chain. The leader runs a LeaderSession (and the
 * history fill); a standby waits and takes over when the lock frees (the leader died or
 * stopped), starting with a backfill so nothing is lost. A leader whose chain changed
 * under it, or whose lock was lost, gives up leadership and competes again.
 */
export class Leadership {
  private role: Role = 'standby';
  private gaps: GapRange[] = [];
  private chain: ChainVerdict | null = null;
  private session: LeaderSession | null = null;
  private historyFill: HistoryFill | null = null;
  private lock: HeldLock | null = null;
  /** The refusal reason logged last: each is logged once until the chain is right again. */
  private refusalLogged: string | null = null;
  private writingLines = false;
  private followingLedger = false;
  private ports: LeadershipPorts | null = null;
  private readonly abort = new AbortController();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly timing: LeadershipTiming) {}

  status(): { readonly role: Role; readonly gaps: readonly GapRange[]; readonly chain: ChainVerdict | null } {
    return { role: this.role, gaps: this.gaps, chain: this.chain };
  }

  /** The leader's session and history fill, for /readyz. */
  get leading(): { readonly session: LeaderSession | null; readonly historyFill: HistoryFill | null } {
    return { session: this.session, historyFill: this.historyFill };
  }

  /** Starts the periodic checks and competes for the lock in the background. */
  start(ports: LeadershipPorts): void {
    this.ports = ports;
    if (this.abort.signal.aborted) return;
    const { logger } = ports;
    this.timers.push(
      setInterval(() => void this.writeLines(ports).catch((error: unknown) => logger.warn('storing round lines failed; retrying', { err: error })), this.timing.linesIntervalMs),
      setInterval(() => void this.verifyChain(ports), this.timing.chainCheckMs),
      setInterval(() => void this.refreshGaps(ports).catch((error: unknown) => logger.warn('gap check failed', { err: error })), this.timing.gapCheckMs),
      setInterval(() => void this.followLedger(ports).catch((error: unknown) => logger.warn('miner ledger pass failed; retrying', { err: error })), this.timing.ledgerIntervalMs),
    );
    void this.lead(ports);
  }

  /**
   * Stops leading or standing by. `interrupt` is called once the session and the fill take
   * no new work, to end their waits for budget or back-off (closing the RPC client).
   */
  async stop(interrupt: () => void): Promise<void> {
    this.abort.abort();
    this.role = 'stopped';
    for (const timer of this.timers) clearInterval(timer);
    const filling = this.historyFill;
    const current = this.session;
    this.historyFill = null;
    this.session = null;
    const stopping = Promise.all([filling?.stop(), current?.stop()]);
    interrupt();
    await stopping;
    await this.lock?.release();
    this.ports?.metrics.leader.set(0);
  }

  private async lead(ports: LeadershipPorts): Promise<void> {
    // Nothing is stored or published for a chain other than the recorded one.
    if (!(await this.awaitRecordedChain(ports))) return;
    while (!this.abort.signal.aborted) {
      // A lost lock ends the process (SIGTERM, orderly shutdown), as for every single writer, unless holdLock stands by.
      this.lock = await ports.holdLock(this.abort.signal, () => void this.demote(ports, 'standby'));
      if (this.lock === null) return; // aborted while standing by
      if (this.abort.signal.aborted) {
        await this.lock.release();
        return;
      }
      // A standby may have waited long for the lock: the chain must still be the recorded one.
      await this.verifyChain(ports);
      if (this.chain?.ok !== true) {
        await this.lock.release();
        this.lock = null;
        void this.lead(ports);
        return;
      }
      await this.takeLead(ports);
      return;
    }
  }

  /** Resolves true once the chain is the recorded one, false when stopped first. */
  private async awaitRecordedChain(ports: LeadershipPorts): Promise<boolean> {
    for (;;) {
      if (this.abort.signal.aborted) return false;
      await this.verifyChain(ports);
      if (this.chain?.ok === true) return true;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.abort.signal.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, this.timing.chainCheckMs);
        this.abort.signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Runs the leader's session, then the history fill beside it. */
  private async takeLead(ports: LeadershipPorts): Promise<void> {
    this.role = 'leader';
    ports.metrics.leader.set(1);
    this.session = ports.openSession();
    await this.session.start();
    await this.refreshGaps(ports).catch(() => undefined);
    const leading = this.session;
    if (leading === null || this.abort.signal.aborted) return;
    const fill = await ports.openHistoryFill(leading.settledUpTo());
    if (fill === null) return;
    this.historyFill = fill;
    await fill.start();
  }

  /** Gives up leadership (the chain changed under us, or the lock was lost); lead() competes again. */
  private async demote(ports: LeadershipPorts, to: 'refused' | 'standby' = 'refused'): Promise<void> {
    const current = this.session;
    const held = this.lock;
    const filling = this.historyFill;
    this.historyFill = null;
    await filling?.stop();
    this.session = null;
    this.lock = null;
    this.role = to;
    ports.metrics.leader.set(0);
    await current?.stop();
    await held?.release();
    if (!this.abort.signal.aborted) void this.lead(ports);
  }

  /** Checks the chain's identity; on a mismatch logs it (once per reason) and stops leading. */
  private async verifyChain(ports: LeadershipPorts): Promise<void> {
    let verdict: ChainVerdict;
    try {
      verdict = await ports.checkChain();
    } catch (error) {
      // RPC or PostgreSQL unreachable: the last verdict stands (the rpc/postgres checks say why).
      if (isGridlabError(error) && error.kind === 'chain') ports.metrics.rpcErrors.inc();
      ports.logger.warn('chain identity check failed; retrying', { err: error });
      return;
    }
    this.chain = verdict;
    if (verdict.ok) {
      if (this.role === 'refused') this.role = 'standby';
      this.refusalLogged = null;
      return;
    }
    if (this.refusalLogged !== verdict.reason) {
      this.refusalLogged = verdict.reason;
      ports.logger.error(`refusing to index: ${verdict.reason}`, { currentGenesisHash: verdict.currentGenesisHash, recordedGenesisHash: verdict.recordedGenesisHash });
    }
    if (this.role === 'leader') await this.demote(ports);
    else this.role = 'refused';
  }

  private async refreshGaps(ports: LeadershipPorts): Promise<void> {
    this.gaps = await ports.rounds.findGaps(100);
    ports.metrics.gapRounds.set(this.gaps.reduce((n, g) => n + g.toId - g.fromId + 1, 0));
    if (this.gaps.length > 0) ports.logger.warn('gaps in stored rounds', { gaps: this.gaps.slice(0, 5), ranges: this.gaps.length });
  }

  /** One pass of the miner ledger while leading (passes never overlap): the live round's new deploys, then rounds without their miners. */
  private async followLedger(ports: LeadershipPorts): Promise<void> {
    const ledger = ports.ledger;
    const session = this.session;
    if (ledger === null || session === null || this.role !== 'leader' || this.followingLedger) return;
    this.followingLedger = true;
    try {
      const settled = session.settledUpTo();
      await ledger.followLive(settled === null ? null : settled + 1);
      await ledger.pass();
    } finally {
      this.followingLedger = false;
    }
  }

  /**
   * Stores the dump line of every stored round that has none (new rounds, imports), in
   * batches back to back until none is left; the next tick resumes after a failure.
   */
  private async writeLines(ports: LeadershipPorts): Promise<void> {
    if (this.writingLines) return;
    this.writingLines = true;
    try {
      while (this.role === 'leader' && !this.abort.signal.aborted) {
        const written = await ports.rounds.writeLines(this.timing.lineBatch);
        ports.metrics.linesWritten.inc(written);
        if (written < this.timing.lineBatch) return;
      }
    } finally {
      this.writingLines = false;
    }
  }
}
