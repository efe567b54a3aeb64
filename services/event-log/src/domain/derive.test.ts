import { ConfigError, DecodeError } from '@gridlab/errors';
import {
  createDeriver,
  DEFAULT_DERIVER_CONFIG,
  parseDeriverState,
  resolveDeriverConfig,
  type DerivableRound,
  type Deriver,
  type DeriverConfig,
} from './derive';
import type { DerivedEvent, EventKind, RoundEventBody } from './events';

const SOL = 1_000_000_000;
const BASE_MS = Date.UTC(2026, 0, 1);

function ts(id: number): string {
  return new Date(BASE_MS + id * 60_000).toISOString();
}

/** A settled round; `winner` null means voided. Totals in SOL for readability. */
function round(id: number, winner: number | null, deployedSol = 10, totalMiners = 300, motherlode = 0): DerivableRound {
  return { id, winningSquare: winner, totalDeployed: Math.round(deployedSol * SOL), totalMiners, motherlode, settledAt: ts(id) };
}

function feed(deriver: Deriver, rounds: readonly DerivableRound[]): DerivedEvent<RoundEventBody>[] {
  return rounds.flatMap((r) => deriver.onRound(r));
}

/** Winners cycling over squares 1..24, so no square repeats and none of them droughts long. */
function filler(fromId: number, n: number): DerivableRound[] {
  return Array.from({ length: n }, (_, i) => round(fromId + i, 1 + (i % 24)));
}

function kinds(events: readonly DerivedEvent[]): EventKind[] {
  return events.map((e) => e.body.kind);
}

describe('drought_broken', () => {
  it('fires when the winner had not won for exactly the threshold of rounds', () => {
    const d = createDeriver();
    const events = feed(d, [round(1, 0), ...filler(2, 100), round(102, 0)]);
    expect(events).toEqual([
      { dedupKey: 'drought_broken:102', ts: ts(102), body: { kind: 'drought_broken', grid: 0, drought: 100, roundId: 102 } },
    ]);
  });

  it('stays silent one round below the threshold', () => {
    const d = createDeriver();
    expect(feed(d, [round(1, 0), ...filler(2, 99), round(101, 0)])).toEqual([]);
  });

  it('does not count voided rounds in a drought', () => {
    const d = createDeriver();
    const history = [round(1, 0), ...filler(2, 50), round(52, null), round(53, null), ...filler(54, 49), round(103, 0)];
    expect(feed(d, history)).toEqual([]);
    // The same 99 non-voided rounds and one more make 100: now it fires.
    const e = createDeriver();
    const events = feed(e, [round(1, 0), ...filler(2, 50), round(52, null), ...filler(53, 50), round(103, 0)]);
    expect(events.map((x) => x.body)).toEqual([{ kind: 'drought_broken', grid: 0, drought: 100, roundId: 103 }]);
  });

  it('counts a square that never won from the first round processed', () => {
    const d = createDeriver({ droughtThreshold: 5 });
    const events = feed(d, [...filler(10, 5), round(15, 0)]);
    expect(events.map((x) => x.body)).toEqual([{ kind: 'drought_broken', grid: 0, drought: 5, roundId: 15 }]);
  });

  it('never fires on a voided round, which leaves droughts as they were', () => {
    const d = createDeriver({ droughtThreshold: 2 });
    feed(d, [round(1, 0), ...filler(2, 5)]);
    const before = d.snapshot().droughts;
    expect(d.onRound(round(7, null))).toEqual([]);
    expect(d.snapshot().droughts).toEqual(before);
    expect(d.lastRoundId).toBe(7);
  });
});

describe('streak', () => {
  it('reports each length from 3 on, and a new winner resets it', () => {
    const d = createDeriver();
    const history = [round(1, 3), round(2, 7), round(3, 7), round(4, 7), round(5, 7), round(6, 7), round(7, 2), round(8, 7), round(9, 7)];
    expect(feed(d, history)).toEqual([
      { dedupKey: 'streak:4', ts: ts(4), body: { kind: 'streak', grid: 7, length: 3, roundId: 4 } },
      { dedupKey: 'streak:5', ts: ts(5), body: { kind: 'streak', grid: 7, length: 4, roundId: 5 } },
      { dedupKey: 'streak:6', ts: ts(6), body: { kind: 'streak', grid: 7, length: 5, roundId: 6 } },
    ]);
  });

  it('skips voided rounds: they neither break nor extend a streak', () => {
    const d = createDeriver();
    const events = feed(d, [round(1, 9), round(2, null), round(3, 9), round(4, null), round(5, null), round(6, 9)]);
    expect(events.map((e) => e.body)).toEqual([{ kind: 'streak', grid: 9, length: 3, roundId: 6 }]);
  });
});

describe('big_round', () => {
  it('needs at least 100 previous settled rounds', () => {
    const d = createDeriver();
    expect(feed(d, [...filler(1, 99), round(100, 5, 1000)])).toEqual([]);
  });

  it('fires at exactly 2x the median of the window with the round details', () => {
    const d = createDeriver();
    const events = feed(d, [...filler(1, 100), round(101, 5, 19.999999999), round(102, 6, 20, 812)]);
    expect(events).toEqual([
      {
        dedupKey: 'big_round:102',
        ts: ts(102),
        body: { kind: 'big_round', roundId: 102, deployedSol: 20, thresholdSol: 20, multiplier: 2, winningSquare: 6, totalMiners: 812 },
      },
    ]);
  });

  it('takes the median over the sliding window only, averaging the middle pair', () => {
    const d = createDeriver({ bigRoundWindow: 4, bigRoundMinHistory: 2 });
    const bodies = feed(d, [
      round(1, 1, 10),
      round(2, 2, 10),
      round(3, 3, 10), // window [10, 10]: 10 < 20
      round(4, 4, 10),
      round(5, 5, 100), // window [10, 10, 10, 10]: median 10, fires x10
      round(6, 6, 15), // window [10, 10, 10, 100]: median 10, 15 < 20
      round(7, 7, 25), // window [10, 10, 100, 15]: median 12.5, threshold 25: fires
      round(8, 8, 50), // window [10, 100, 15, 25]: median 20, threshold 40: fires
    ]).map((e) => e.body);
    expect(bodies).toEqual([
      { kind: 'big_round', roundId: 5, deployedSol: 100, thresholdSol: 20, multiplier: 10, winningSquare: 5, totalMiners: 300 },
      { kind: 'big_round', roundId: 7, deployedSol: 25, thresholdSol: 25, multiplier: 2, winningSquare: 7, totalMiners: 300 },
      { kind: 'big_round', roundId: 8, deployedSol: 50, thresholdSol: 40, multiplier: 2.5, winningSquare: 8, totalMiners: 300 },
    ]);
  });

  it('leaves voided rounds out of the window and never reports one as big', () => {
    const d = createDeriver({ bigRoundWindow: 4, bigRoundMinHistory: 2 });
    const bodies = feed(d, [
      round(1, 1, 10),
      round(2, 2, 10),
      round(3, null, 1),
      round(4, null, 1),
      round(5, null, 500),
      round(6, 3, 20),
    ]).map((e) => e.body);
    expect(bodies).toEqual([
      { kind: 'big_round', roundId: 6, deployedSol: 20, thresholdSol: 20, multiplier: 2, winningSquare: 3, totalMiners: 300 },
    ]);
  });
});

describe('milestone', () => {
  it('marks round ids divisible by the modulus, voided ones included', () => {
    const d = createDeriver();
    const events = feed(d, [round(9_999, 1), round(10_000, null), round(10_001, 2), round(20_000, 3)]);
    expect(events).toEqual([
      { dedupKey: 'milestone:rounds:10000', ts: ts(10_000), body: { kind: 'milestone', metric: 'rounds', value: 10_000, roundId: 10_000 } },
      { dedupKey: 'milestone:rounds:20000', ts: ts(20_000), body: { kind: 'milestone', metric: 'rounds', value: 20_000, roundId: 20_000 } },
    ]);
  });

  it('reports each multiple of the SOL step that cumulative deployed SOL reaches', () => {
    const d = createDeriver();
    const bodies = feed(d, [
      round(1, 1, 60_000),
      round(2, null, 40_000), // voided rounds count: exactly 100,000
      round(3, 2, 99_999),
      round(4, 3, 250_001), // 450,000: passes 200,000, 300,000 and 400,000
    ]).map((e) => e.body);
    expect(bodies).toEqual([
      { kind: 'milestone', metric: 'deployedSol', value: 100_000, roundId: 2 },
      { kind: 'milestone', metric: 'deployedSol', value: 200_000, roundId: 4 },
      { kind: 'milestone', metric: 'deployedSol', value: 300_000, roundId: 4 },
      { kind: 'milestone', metric: 'deployedSol', value: 400_000, roundId: 4 },
    ]);
    expect(feed(createDeriver(), [round(1, 1, 60_000), round(2, 2, 40_000)]).map((e) => e.dedupKey)).toEqual([
      'milestone:deployedSol:100000',
    ]);
  });

  it('keeps the cumulative sum exact past 2^53 lamports', () => {
    const d = createDeriver({ deployedSolStep: 9_000_000 });
    const big = { id: 1, winningSquare: 4, totalDeployed: 9_000_000_000_000_001, totalMiners: 1, motherlode: 0, settledAt: ts(1) };
    d.onRound(big);
    const events = d.onRound({ ...big, id: 2 });
    expect(d.snapshot().cumulativeDeployedLamports).toBe('18000000000000002');
    expect(events.map((e) => e.body)).toEqual([{ kind: 'milestone', metric: 'deployedSol', value: 18_000_000, roundId: 2 }]);
  });
});

describe('motherlode', () => {
  it('fires once for a round that paid the motherlode, with the square and the ORE paid', () => {
    const d = createDeriver();
    const events = feed(d, [round(1, 3), round(2, 7, 10, 300, 46_000_000_000_000), round(3, 7)]);
    expect(events.map((e) => [e.dedupKey, e.ts, e.body])).toEqual([
      ['motherlode:2', ts(2), { kind: 'motherlode', roundId: 2, winningSquare: 7, oreAmount: 46_000_000_000_000 }],
    ]);
  });

  it('never fires for a voided round, and rejects a negative amount', () => {
    expect(feed(createDeriver(), [round(1, null, 10, 300, 0)])).toEqual([]);
    expect(() => createDeriver().onRound(round(1, 2, 10, 300, -1))).toThrow(/motherlode/);
  });
});

describe('ordering and replay', () => {
  it('emits one round\'s events in a fixed order', () => {
    const d = createDeriver({ droughtThreshold: 1, bigRoundWindow: 10, bigRoundMinHistory: 1, milestoneRoundModulus: 4, deployedSolStep: 50 });
    const events = feed(d, [round(1, 0, 10), round(2, 5, 10), round(3, 5, 10), round(4, 5, 30, 300, 1)]);
    expect(kinds(events.filter((e) => e.body.roundId === 4))).toEqual(['big_round', 'streak', 'motherlode', 'milestone', 'milestone']);
    const e = createDeriver({ droughtThreshold: 2, bigRoundWindow: 10, bigRoundMinHistory: 1, milestoneRoundModulus: 4, deployedSolStep: 50 });
    const withDrought = feed(e, [round(1, 0, 10), round(2, 1, 10), round(3, 2, 10), round(4, 0, 30)]);
    expect(withDrought.filter((x) => x.body.roundId === 4).map((x) => x.dedupKey)).toEqual([
      'drought_broken:4',
      'big_round:4',
      'milestone:rounds:4',
      'milestone:deployedSol:50',
    ]);
  });

  it('appends nothing when a round at or below the watermark is fed again', () => {
    const d = createDeriver({ droughtThreshold: 2 });
    const history = [round(1, 0), round(2, 1), round(3, 2), round(4, 0)];
    expect(feed(d, history).map((e) => e.dedupKey)).toEqual(['drought_broken:3', 'drought_broken:4']);
    const before = d.snapshot();
    expect(d.onRound(round(4, 0))).toEqual([]);
    expect(d.onRound(round(2, 0, 1_000_000))).toEqual([]);
    expect(d.snapshot()).toEqual(before);
    expect(d.lastRoundId).toBe(4);
  });

  it('skips id gaps without inventing rounds', () => {
    const d = createDeriver({ droughtThreshold: 3 });
    const events = feed(d, [round(1, 0), round(2, 1), round(50, 2), round(51, 0)]);
    expect(events.map((e) => e.body)).toEqual([]);
    expect(d.snapshot().droughts[0]).toBe(0);
    expect(d.snapshot().droughts[3]).toBe(4);
  });
});

/** Deterministic pseudo-random history in which every round kind fires. */
function syntheticHistory(n: number): DerivableRound[] {
  let seed = 0x2545f491;
  const next = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
    return seed / 2 ** 32;
  };
  const rounds: DerivableRound[] = [];
  let winner = 0;
  for (let id = 1; id <= n; id++) {
    const r = next();
    // Repeat the winner often enough for streaks; avoid square 24 for long droughts.
    if (next() >= 0.3) winner = Math.floor(next() * 24);
    const sol = r < 0.05 ? 150 + next() * 150 : 5 + next() * 20;
    rounds.push(round(id, next() < 0.03 ? null : winner, Math.round(sol * 1000) / 1000, 100 + Math.floor(next() * 400)));
    if (id % 997 === 0) rounds.push(round(++id, 24, 12));
  }
  return rounds;
}

describe('state snapshot and restore', () => {
  const config: Partial<DeriverConfig> = { droughtThreshold: 60, bigRoundWindow: 200, bigRoundMinHistory: 50, milestoneRoundModulus: 500, deployedSolStep: 5_000 };
  const history = syntheticHistory(4_000);

  it('continues from a JSON round trip exactly as an uninterrupted run', () => {
    const whole = feed(createDeriver(config), history);
    expect(new Set(kinds(whole))).toEqual(new Set(['drought_broken', 'big_round', 'streak', 'milestone']));
    expect(whole.filter((e) => e.body.kind === 'streak').some((e) => e.body.kind === 'streak' && e.body.length >= 4)).toBe(true);

    for (const cuts of [[1], [37, 1_234, 2_999], [150, 151, 152, 3_500, 3_999]]) {
      let deriver = createDeriver(config);
      const pieced: DerivedEvent[] = [];
      let from = 0;
      for (const cut of [...cuts, history.length]) {
        pieced.push(...feed(deriver, history.slice(from, cut)));
        const stored = JSON.parse(JSON.stringify(deriver.snapshot())) as unknown;
        deriver = createDeriver(config, parseDeriverState(stored));
        from = cut;
      }
      expect(pieced).toEqual(whole);
    }
  });

  it('rebuilds the same state by replaying history, and ignores the replayed prefix', () => {
    const first = createDeriver(config);
    feed(first, history.slice(0, 2_000));
    const resumed = createDeriver(config, first.snapshot());
    const rebuilt = createDeriver(config);
    feed(rebuilt, history.slice(0, 2_000));
    expect(rebuilt.snapshot()).toEqual(resumed.snapshot());
    expect(feed(resumed, history.slice(0, 2_000))).toEqual([]);
    expect(feed(resumed, history.slice(2_000))).toEqual(feed(rebuilt, history.slice(2_000)));
  });

  it('keeps only the newest totals when restored with a smaller window', () => {
    const d = createDeriver({ bigRoundWindow: 5, bigRoundMinHistory: 1 });
    feed(d, [1, 2, 3, 4, 5].map((i) => round(i, i, i)));
    const smaller = createDeriver({ bigRoundWindow: 2, bigRoundMinHistory: 1 }, d.snapshot());
    expect(smaller.snapshot().recentTotals).toEqual([4 * SOL, 5 * SOL]);
    // Median 4.5 SOL: 9 SOL reaches 2x.
    expect(smaller.onRound(round(6, 6, 9)).map((e) => e.body.kind)).toEqual(['big_round']);
  });
});

describe('validation', () => {
  it('lists every bad setting', () => {
    expect(resolveDeriverConfig()).toEqual(DEFAULT_DERIVER_CONFIG);
    let caught: unknown;
    try {
      createDeriver({ droughtThreshold: 0, bigRoundMultiplier: Number.NaN, bigRoundWindow: 10, bigRoundMinHistory: 11, deployedSolStep: 0.5 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    expect((caught as ConfigError).errors?.map((e) => e.path)).toEqual([
      '/droughtThreshold',
      '/deployedSolStep',
      '/bigRoundMultiplier',
      '/bigRoundMinHistory',
    ]);
  });

  it('rejects a malformed persisted state', () => {
    const good = createDeriver().snapshot();
    expect(parseDeriverState(JSON.parse(JSON.stringify(good)))).toEqual(good);
    expect(() => parseDeriverState(null)).toThrow(DecodeError);
    expect(() => parseDeriverState({ ...good, version: 3 })).toThrow(/version/);
    expect(() => parseDeriverState({ ...good, roundCount: -1 })).toThrow(/roundCount/);
    expect(() => parseDeriverState({ ...good, droughts: good.droughts.slice(1) })).toThrow(/droughts/);
    expect(() => parseDeriverState({ ...good, streakSquare: 3 })).toThrow(/streakLength/);
    expect(() => parseDeriverState({ ...good, streakSquare: 3, streakLength: 1, droughts: good.droughts.map(() => 1) })).toThrow(/droughts/);
    expect(() => parseDeriverState({ ...good, cumulativeDeployedLamports: '1e3' })).toThrow(/cumulativeDeployedLamports/);
    expect(() => parseDeriverState({ ...good, recentTotals: [1.5] })).toThrow(/recentTotals/);
  });

  it('counts the rounds it processed, voided ones included, and reads a version 1 state as not counted', () => {
    const d = createDeriver();
    feed(d, [round(1, 3), round(2, null), round(2, 4), round(5, 6)]);
    expect(d.roundCount).toBe(3);
    const { roundCount: _, ...v1 } = { ...d.snapshot(), version: 1 };
    const resumed = createDeriver({}, parseDeriverState(v1));
    expect(resumed.roundCount).toBeNull();
    feed(resumed, [round(6, 7)]);
    expect(resumed.roundCount).toBeNull();
    expect(resumed.lastRoundId).toBe(6);
  });

  it('rejects an out-of-range round without touching the state', () => {
    const d = createDeriver();
    feed(d, [round(1, 3)]);
    const before = d.snapshot();
    expect(() => d.onRound(round(2, 25))).toThrow(DecodeError);
    expect(() => d.onRound({ ...round(2, 1), totalDeployed: -1 })).toThrow(/totalDeployed/);
    expect(d.snapshot()).toEqual(before);
  });
});
