/**
 * The writer over in-memory ports (no I/O): rounds stored in any order, in batches, with
 * gaps filled later, end with the log holding exactly the events of an in-order rebuild
 * from the stored rounds (the specification), with gap-free increasing ids.
 */
import fc from 'fast-check';
import type { LogEvent } from '@gridlab/contracts';
import type { Checkpoint, CheckpointChange, LiveEvent, NewEvent, Progress } from '@gridlab/events-store';
import { createLogger } from '@gridlab/logger';
import { ContiguousReader, type RoundOutcome } from '@gridlab/rounds-store';
import { createDeriver, type DeriverConfig } from '../domain/derive';
import { EventWriter } from './event-writer';
import type { EventLog, RoundOutcomes } from './ports';

const SOL = 1_000_000_000;
// Small thresholds so a few dozen rounds give every round kind.
const CONFIG: Partial<DeriverConfig> = { droughtThreshold: 3, bigRoundMultiplier: 1.5, bigRoundWindow: 5, bigRoundMinHistory: 2, streakMinLength: 3, milestoneRoundModulus: 7, deployedSolStep: 40 };

interface Row {
  readonly id: number;
  readonly event: NewEvent;
  withdrawnBy: number | null;
}

/** The rounds table: any order of inserts; reads in id order. */
class MemoryRounds {
  readonly stored = new Map<number, RoundOutcome>();
  store(rounds: readonly RoundOutcome[]): void {
    for (const r of rounds) this.stored.set(r.id, r);
  }
  sorted(): RoundOutcome[] {
    return [...this.stored.values()].sort((a, b) => a.id - b.id);
  }
  /** The port, over a reader that passes over a missing id at once (the worst case for late rounds). */
  port(): RoundOutcomes {
    const reader = new ContiguousReader<RoundOutcome>(async (fromId, limit) => this.sorted().filter((r) => r.id >= fromId).slice(0, limit), { waitMs: 0, onSkip: () => {}, now: () => 0 });
    return {
      after: (last, limit) => reader.after(last, limit),
      countUpTo: async (id) => this.sorted().filter((r) => r.id <= id).length,
      countsUpTo: async (ids) => ids.map((id) => this.sorted().filter((r) => r.id <= id).length),
    };
  }
}

/** The events schema: appendEvents' rules (dedup among live events, withdrawals mark first), progress and checkpoints. */
class MemoryLog implements EventLog {
  readonly rows: Row[] = [];
  private state: Progress = { roundId: 0, deriverState: null, billingFactSeq: 0 };
  private readonly saved = new Map<number, Checkpoint>();

  async progress(): Promise<Progress> {
    return structuredClone(this.state);
  }
  async append(events: readonly NewEvent[], progress: Partial<Progress>): Promise<LogEvent[]> {
    return this.commitRounds(events, progress, { dropAbove: null, save: [] });
  }
  async commitRounds(events: readonly NewEvent[], progress: Partial<Progress>, checkpoints: CheckpointChange): Promise<LogEvent[]> {
    const withdrawing = new Set(events.filter((e) => e.kind === 'withdrawn').map((e) => Number(e.fields['eventId'])));
    const seen = new Set(this.rows.filter((r) => r.withdrawnBy === null && !withdrawing.has(r.id)).map((r) => r.event.dedupKey));
    const fresh = events.filter((e) => !seen.has(e.dedupKey) && seen.add(e.dedupKey));
    const first = this.rows.length + 1;
    fresh.forEach((e, i) => {
      if (e.kind !== 'withdrawn') return;
      const target = this.rows.find((r) => r.id === e.fields['eventId']);
      if (target === undefined || target.withdrawnBy !== null) throw new Error(`withdrawing event ${String(e.fields['eventId'])}, which is not live`);
      target.withdrawnBy = first + i;
    });
    fresh.forEach((event, i) => this.rows.push({ id: first + i, event, withdrawnBy: null }));
    this.state = structuredClone({ ...this.state, ...progress });
    if (checkpoints.dropAbove !== null) for (const id of [...this.saved.keys()]) if (id > checkpoints.dropAbove) this.saved.delete(id);
    for (const c of checkpoints.save) this.saved.set(c.roundId, structuredClone(c));
    return fresh.map((e, i) => ({ id: first + i, ts: e.ts, kind: e.kind, ...e.fields }) as LogEvent);
  }
  async liveRoundEvents(range: { after: number | null; upTo: number }, keys: readonly string[]): Promise<LiveEvent[]> {
    return this.rows
      .filter((r) => r.withdrawnBy === null && r.event.kind !== 'withdrawn' && typeof r.event.fields['roundId'] === 'number')
      .filter((r) => {
        const roundId = r.event.fields['roundId'] as number;
        return ((range.after === null || roundId > range.after) && roundId <= range.upTo) || keys.includes(r.event.dedupKey);
      })
      .map((r) => ({ id: r.id, dedupKey: r.event.dedupKey, kind: r.event.kind, ts: r.event.ts, fields: structuredClone(r.event.fields) }));
  }
  async checkpoints(): Promise<Omit<Checkpoint, 'state'>[]> {
    return [...this.saved.values()].sort((a, b) => a.roundId - b.roundId).map(({ roundId, roundCount }) => ({ roundId, roundCount }));
  }
  async checkpointState(roundId: number): Promise<unknown> {
    return structuredClone(this.saved.get(roundId)?.state);
  }

  /** The events that hold: neither withdrawn nor a withdrawal. */
  live(): { key: string; ts: string; body: Record<string, unknown> }[] {
    return this.rows.filter((r) => r.withdrawnBy === null && r.event.kind !== 'withdrawn').map((r) => ({ key: r.event.dedupKey, ts: r.event.ts, body: { kind: r.event.kind, ...r.event.fields } }));
  }
}

const noFacts = { after: async () => [] };
const quiet = { appended: () => {}, progress: () => {} };

async function startWriter(log: MemoryLog, rounds: MemoryRounds, checkpointEvery: number, batchSize: number): Promise<EventWriter> {
  const writer = new EventWriter(log, rounds.port(), noFacts, quiet, createLogger({ service: 'test', silent: true }), { deriver: CONFIG, batchSize, checkpointEvery });
  await writer.load();
  return writer;
}

/** The specification: every stored round derived in id order from the first. */
function rebuild(rounds: readonly RoundOutcome[], config: Partial<DeriverConfig> = CONFIG): { key: string; ts: string; body: Record<string, unknown> }[] {
  const deriver = createDeriver(config);
  return [...rounds].sort((a, b) => a.id - b.id).flatMap((r) => deriver.onRound(r)).map((e) => ({ key: e.dedupKey, ts: e.ts, body: { ...e.body } }));
}

const byKey = <T extends { key: string }>(events: readonly T[]): T[] => [...events].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

function round(id: number, winningSquare: number | null, deployedSol = 10): RoundOutcome {
  return { id, winningSquare, totalDeployed: deployedSol * SOL, totalMiners: 100 + id, motherlode: 0, settledAt: new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString() };
}

/** Every withdrawal names a live-at-the-time earlier round event, once; ids are 1..n. */
function expectWellFormed(log: MemoryLog): void {
  expect(log.rows.map((r) => r.id)).toEqual(log.rows.map((_, i) => i + 1));
  for (const row of log.rows) {
    if (row.withdrawnBy !== null) {
      const by = log.rows[row.withdrawnBy - 1]!;
      expect([by.event.kind, by.event.fields['eventId'], by.id > row.id]).toEqual(['withdrawn', row.id, true]);
    }
    if (row.event.kind === 'withdrawn') expect(log.rows[(row.event.fields['eventId'] as number) - 1]!.withdrawnBy).toBe(row.id);
  }
}

describe('the event writer with rounds stored out of order', () => {
  it('logs the events the issue found missing once the older rounds arrive (hand-worked)', async () => {
    // Square 0 wins round 1, then squares 1, 2, 3; it wins again at 5 after 3 rounds without,
    // and again at 6 and 7: a streak of 3 at 7. Only 4..7 are stored first (the live rounds).
    // 1 SOL a round: no big round and no deployedSol milestone (40 SOL) in 7 rounds.
    const history = [round(1, 0, 1), round(2, 1, 1), round(3, 2, 1), round(4, 3, 1), round(5, 0, 1), round(6, 0, 1), round(7, 0, 1)];
    const rounds = new MemoryRounds();
    const log = new MemoryLog();
    const writer = await startWriter(log, rounds, 2, 100);
    rounds.store(history.slice(3));
    await writer.poke();
    // Counted from round 4, square 0 had no drought of 3 and its run starts at 5: 5, 6, 7 is a streak of 3.
    expect(log.live().map((e) => e.key)).toEqual(['streak:7', 'milestone:rounds:7']);
    rounds.store(history.slice(0, 3));
    await writer.poke();
    const events = log.rows.map((r) => ({ id: r.id, kind: r.event.kind, ...r.event.fields }));
    expect(events).toEqual([
      { id: 1, kind: 'streak', grid: 0, length: 3, roundId: 7 },
      { id: 2, kind: 'milestone', metric: 'rounds', value: 7, roundId: 7 },
      // Round 4: square 3 never won, so its drought counts from the first round: 1, 2, 3.
      { id: 3, kind: 'drought_broken', grid: 3, drought: 3, roundId: 4 },
      // Round 5: square 0's drought is rounds 2, 3, 4. The streak at 7 still holds (rounds 1 and 5 are not consecutive wins).
      { id: 4, kind: 'drought_broken', grid: 0, drought: 3, roundId: 5 },
    ]);
    expect(log.rows.every((r) => r.withdrawnBy === null)).toBe(true);
    await writer.poke();
    expect(log.rows).toHaveLength(4);
  });

  it('withdraws what the older rounds no longer imply, and appends what holds instead (hand-worked)', async () => {
    // Square 5 wins 10, 11, 12: a streak at 12 while 9 is missing; round 9 turns out to be a win of 5 too,
    // so the run is 9..12: the streak at 12 is of length 4, and 11 has one of length 3.
    const rounds = new MemoryRounds();
    const log = new MemoryLog();
    const writer = await startWriter(log, rounds, 3, 100);
    rounds.store([round(8, 1, 1), round(10, 5, 1), round(11, 5, 1), round(12, 5, 1)]);
    await writer.poke();
    expect(log.live().map((e) => e.key)).toEqual(['streak:12']);
    rounds.store([round(9, 5, 1)]);
    await writer.poke();
    expect(log.rows.map((r) => ({ id: r.id, withdrawnBy: r.withdrawnBy, kind: r.event.kind, ...r.event.fields }))).toEqual([
      { id: 1, withdrawnBy: 2, kind: 'streak', grid: 5, length: 3, roundId: 12 },
      { id: 2, withdrawnBy: null, kind: 'withdrawn', eventId: 1, eventKind: 'streak', roundId: 12 },
      { id: 3, withdrawnBy: null, kind: 'streak', grid: 5, length: 3, roundId: 11 },
      { id: 4, withdrawnBy: null, kind: 'streak', grid: 5, length: 4, roundId: 12 },
    ]);
    expect(log.rows[1]!.event.ts).toBe(round(12, 5).settledAt);
  });

  it('ends with the events of an in-order rebuild, whatever the order and batches the rounds are stored in', async () => {
    const roundArb = (id: number) =>
      fc.record({ winner: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 8 }), deployedSol: fc.integer({ min: 1, max: 30 }) }).map(({ winner, deployedSol }) => round(id, winner, deployedSol));
    const historyArb = fc
      .integer({ min: 1, max: 45 })
      .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => roundArb(i + 1))))
      // Some ids never exist (a gap the reader passes over for good).
      .chain((all) => fc.subarray(all, { minLength: 1 }));
    const scheduleArb = historyArb.chain((history) =>
      fc.record({
        history: fc.constant(history),
        order: fc.shuffledSubarray(history, { minLength: history.length, maxLength: history.length }),
        cuts: fc.array(fc.integer({ min: 1, max: history.length }), { maxLength: 8 }),
        restarts: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        checkpointEvery: fc.integer({ min: 1, max: 6 }),
        batchSize: fc.integer({ min: 1, max: 8 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(scheduleArb, async ({ history, order, cuts, restarts, checkpointEvery, batchSize }) => {
        const rounds = new MemoryRounds();
        const log = new MemoryLog();
        let writer = await startWriter(log, rounds, checkpointEvery, batchSize);
        const bounds = [...new Set([0, ...cuts, order.length])].sort((a, b) => a - b);
        for (let b = 1; b < bounds.length; b++) {
          rounds.store(order.slice(bounds[b - 1], bounds[b]));
          if (restarts[b] === true) writer = await startWriter(log, rounds, checkpointEvery, batchSize);
          await writer.poke();
        }
        expect(byKey(log.live())).toEqual(byKey(rebuild(history)));
        expectWellFormed(log);
        const before = log.rows.length;
        await (await startWriter(log, rounds, checkpointEvery, batchSize)).poke();
        expect(log.rows).toHaveLength(before);
      }),
      { numRuns: 300 },
    );
  });

  it('newest first, then older rounds in batches (the mainnet backfill), gives the rebuild', async () => {
    const history = Array.from({ length: 120 }, (_, i) => round(i + 1, (i * 7 + (i % 5 === 0 ? 0 : 3)) % 4, 5 + ((i * 13) % 17)));
    const rounds = new MemoryRounds();
    const log = new MemoryLog();
    const writer = await startWriter(log, rounds, 10, 16);
    rounds.store(history.slice(100));
    await writer.poke();
    for (let from = 0; from < 100; from += 15) {
      rounds.store(history.slice(from, Math.min(from + 15, 100)));
      await writer.poke();
    }
    expect(byKey(log.live())).toEqual(byKey(rebuild(history)));
    expectWellFormed(log);
  });
});
