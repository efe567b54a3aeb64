/**
 * The event log a test expects, derived from the stored rounds and billing's facts by
 * SPEC 6's definitions, written here on its own (not with the event-log service's
 * deriver), so that a test compares the log against an independent source the way it
 * compares stored rounds against the chain.
 */

/** The thresholds of the round events (the event-log's EVENT_* settings). */
export interface EventRules {
  readonly droughtThreshold: number;
  readonly streakMinLength: number;
  readonly milestoneRounds: number;
  readonly milestoneSol: number;
  readonly bigRoundMultiplier: number;
  readonly bigRoundWindow: number;
  readonly bigRoundMinHistory: number;
}

export interface StoredRoundFacts {
  readonly id: number;
  readonly winningSquare: number | null;
  readonly totalDeployed: number;
  readonly totalMiners: number;
  readonly motherlode: number;
  readonly settledAt: string;
}

export interface StoredFact {
  readonly kind: 'subscription' | 'tier';
  readonly payload: Record<string, unknown>;
}

/** An event as the log holds it: kind, time and body (without id). */
export interface ExpectedEvent {
  readonly kind: string;
  readonly ts: string;
  readonly body: Record<string, unknown>;
}

const LAMPORTS_PER_SOL = 1e9;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The round events of `rounds` (every stored round from the first, ascending), in the
 * log's order: per round drought_broken, big_round, streak, motherlode, the rounds milestone, then the
 * deployed-SOL milestones it crossed. Voided rounds (no winner) are no hit, leave droughts,
 * streaks and the big-round window alone, and count for milestones.
 */
export function expectedRoundEvents(rounds: readonly StoredRoundFacts[], rules: EventRules): ExpectedEvent[] {
  const events: ExpectedEvent[] = [];
  const sinceWin = new Array<number>(25).fill(0);
  const window: number[] = [];
  let streakSquare: number | null = null;
  let streak = 0;
  let deployed = 0n;
  const step = BigInt(rules.milestoneSol) * BigInt(LAMPORTS_PER_SOL);
  for (const r of rounds) {
    const at = new Date(r.settledAt).toISOString();
    const w = r.winningSquare;
    if (w !== null) {
      if (sinceWin[w]! >= rules.droughtThreshold) events.push({ kind: 'drought_broken', ts: at, body: { grid: w, drought: sinceWin[w]!, roundId: r.id } });
      if (window.length >= rules.bigRoundMinHistory) {
        const m = median(window);
        const bar = rules.bigRoundMultiplier * m;
        if (m > 0 && r.totalDeployed >= bar) {
          events.push({
            kind: 'big_round',
            ts: at,
            body: { roundId: r.id, deployedSol: r.totalDeployed / LAMPORTS_PER_SOL, thresholdSol: bar / LAMPORTS_PER_SOL, multiplier: r.totalDeployed / m, winningSquare: w, totalMiners: r.totalMiners },
          });
        }
      }
      streak = w === streakSquare ? streak + 1 : 1;
      streakSquare = w;
      if (streak >= rules.streakMinLength) events.push({ kind: 'streak', ts: at, body: { grid: w, length: streak, roundId: r.id } });
      if (r.motherlode > 0) events.push({ kind: 'motherlode', ts: at, body: { roundId: r.id, winningSquare: w, oreAmount: r.motherlode } });
      for (let s = 0; s < 25; s++) sinceWin[s]!++;
      sinceWin[w] = 0;
      window.push(r.totalDeployed);
      if (window.length > rules.bigRoundWindow) window.shift();
    }
    if (r.id > 0 && r.id % rules.milestoneRounds === 0) events.push({ kind: 'milestone', ts: at, body: { metric: 'rounds', value: r.id, roundId: r.id } });
    const before = deployed;
    deployed += BigInt(r.totalDeployed);
    for (let k = before / step + 1n; k <= deployed / step; k++) {
      events.push({ kind: 'milestone', ts: at, body: { metric: 'deployedSol', value: Number(k) * rules.milestoneSol, roundId: r.id } });
    }
  }
  return events;
}

/** The billing events of billing's facts, in their commit order: each fact as published. */
export function expectedBillingEvents(facts: readonly StoredFact[]): ExpectedEvent[] {
  return facts.map((f) => {
    const p = f.payload;
    const ts = new Date(String(p['ts'])).toISOString();
    return f.kind === 'subscription'
      ? { kind: 'subscription', ts, body: { action: p['action'], plan: p['plan'], activeSubs: p['activeSubs'] } }
      : { kind: 'tier', ts, body: { activeSubs: p['activeSubs'], tokenNow: p['tokenNow'], direction: p['direction'] } };
  });
}
