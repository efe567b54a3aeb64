import fc from 'fast-check';
import { backtest } from '../backtest/backtest';
import { normalizeDsl } from '../dsl/normalize';
import { BASE_STRATEGIES, FILTER_METRICS, SIZING_MODES, type Dsl } from '../dsl/types';
import { History, type RoundInput } from '../history/history';
import { arbitraryHistory, arbitraryMixedHistory, fixtureRounds, flatRound } from '../testing/fixtures';
import { createRunner } from './runner';

const B = 1_000_000;

const arbitraryDsl: fc.Arbitrary<Dsl> = fc
  .record({
    base: fc.constantFrom(...BASE_STRATEGIES),
    mode: fc.constantFrom(...SIZING_MODES),
    k: fc.integer({ min: 1, max: 25 }),
    lookback: fc.integer({ min: 50, max: 70 }),
    metrics: fc.subarray([...FILTER_METRICS], { maxLength: 3 }),
  })
  .map(({ base, mode, k, lookback, metrics }) =>
    normalizeDsl({
      base_strategy: base,
      params: { bet_size_lamports: B, sizing_mode: mode, num_squares: k, hit_rate_lookback: lookback, drought_threshold: 3, custom_squares: [2, 9] },
      // Filters that always pass when their metric exists: the state behind them must still be right.
      filters: metrics.map((metric) => ({ metric, op: '>=', value: -1 })),
    }),
  );

/** Decisions of the rounds after `from`, stepping a runner that reached `from` by `prepare`. */
function decisionsAfter(dsl: Dsl, rounds: readonly RoundInput[], from: number, prepare: 'seek' | 'observe'): unknown[] {
  const history = History.from(rounds);
  const runner = createRunner(dsl, history);
  if (prepare === 'seek') runner.seek(from);
  else for (let i = 0; i < from; i++) runner.observe();
  return rounds.slice(from).map(() => runner.step()).map((o) => [o.roundId, o.decision, o.pnlLamports]);
}

describe('runner', () => {
  it('seeking to a round gives the same state as observing every round before it', () => {
    fc.assert(
      fc.property(arbitraryHistory(1, 140), arbitraryDsl, fc.nat(), (rounds, dsl, seed) => {
        const from = seed % (rounds.length + 1);
        expect(decisionsAfter(dsl, rounds, from, 'seek')).toEqual(decisionsAfter(dsl, rounds, from, 'observe'));
      }),
      { numRuns: 150 },
    );
  });

  it('never looks ahead: a decision depends only on the rounds before it', () => {
    fc.assert(
      fc.property(arbitraryHistory(2, 80), arbitraryDsl, fc.nat(), fc.integer({ min: 0, max: 24 }), (rounds, dsl, seed, other) => {
        const r = 1 + (seed % (rounds.length - 1));
        const decide = (history: readonly RoundInput[]) => {
          const runner = createRunner(dsl, History.from(history));
          runner.runTo(r);
          return runner.decide();
        };
        const full = decide(rounds);
        // Without round r and everything after it...
        expect(decide(rounds.slice(0, r))).toEqual(full);
        // ...or with round r's outcome and stakes replaced.
        const changed = rounds.map((x, i) => (i === r ? { ...flatRound(x.id, other) } : x));
        expect(decide(changed)).toEqual(full);
      }),
      { numRuns: 150 },
    );
  });

  it('runTo with one stake per round (the fused loop, with and without precomputed rankings; any sizing mode) equals stepping round by round, also when resumed', () => {
    const flatDsl = fc
      .record({
        base: fc.constantFrom(...BASE_STRATEGIES),
        mode: fc.constantFrom(...SIZING_MODES),
        k: fc.integer({ min: 1, max: 25 }),
        bet: fc.integer({ min: 1, max: 3 * B }),
        cap: fc.constantFrom(B, 100_000_000),
        cooldown: fc.integer({ min: 0, max: 2 }),
        stopStreak: fc.constantFrom(undefined, 2, 4),
        takeProfit: fc.constantFrom(0, 5 * B),
        stopLoss: fc.constantFrom(0, 20 * B),
        droughtThreshold: fc.integer({ min: 0, max: 40 }),
      })
      .map(({ base, mode, k, bet, cap, cooldown, stopStreak, takeProfit, stopLoss, droughtThreshold }) =>
        normalizeDsl({
          base_strategy: base,
          params: {
            bet_size_lamports: bet,
            sizing_mode: mode,
            num_squares: k,
            drought_threshold: droughtThreshold,
            custom_squares: [2, 9],
            max_bet_per_square_lamports: cap,
            cooldown_after_loss_rounds: cooldown,
            ...(stopStreak === undefined ? {} : { stop_loss_streak: stopStreak }),
            take_profit_lamports: takeProfit,
            session_stop_loss_lamports: stopLoss,
          },
        }),
      );
    fc.assert(
      fc.property(fc.oneof(arbitraryHistory(2, 120), arbitraryMixedHistory(2, 120)), flatDsl, fc.nat(), (rounds, dsl, seed) => {
        const history = History.from(rounds);
        const stepped = createRunner(dsl, history, { record: true });
        for (let i = 0; i < rounds.length; i++) stepped.step();
        for (const precomputedRankings of [false, true]) {
          const fused = createRunner(dsl, history, { record: true, precomputedRankings });
          fused.runTo(seed % (rounds.length + 1));
          fused.runTo(rounds.length);
          expect(fused.result()).toEqual(stepped.result());
          expect(fused.decide()).toEqual(stepped.decide());
        }
      }),
      { numRuns: 500 },
    );
  });

  it('drought and recent_winners keep their counts right over long precomputed runs', () => {
    const dsl = fc
      .record({ base: fc.constantFrom('drought' as const, 'recent_winners' as const), k: fc.integer({ min: 1, max: 25 }), threshold: fc.integer({ min: 1, max: 12 }) })
      .map(({ base, k, threshold }) => normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B, num_squares: k, drought_threshold: threshold } }));
    fc.assert(
      fc.property(arbitraryHistory(20, 300), dsl, fc.nat(), (rounds, d, seed) => {
        const history = History.from(rounds);
        const stepped = createRunner(d, history, { record: true });
        for (let i = 0; i < rounds.length; i++) stepped.step();
        const fused = createRunner(d, history, { record: true, precomputedRankings: true });
        fused.runTo(seed % (rounds.length + 1));
        fused.runTo(rounds.length);
        expect(fused.result()).toEqual(stepped.result());
      }),
      { numRuns: 200 },
    );
  });

  it('a forward test fed one live round at a time equals a backtest of the same rounds', () => {
    const rounds = fixtureRounds();
    for (const base of BASE_STRATEGIES) {
      const dsl = normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B, sizing_mode: 'martingale', custom_squares: [4], cooldown_after_loss_rounds: 1 } });
      const history = History.from(rounds.slice(0, 12));
      const forward = createRunner(dsl, history, { record: true });
      forward.seek(12);
      for (const round of rounds.slice(12)) {
        const predicted = forward.decide();
        const settled = forward.step(round);
        expect(settled.decision).toEqual(settled.winningSquare === null ? { bet: false, reason: 'voided', squares: [], stakesLamports: [] } : predicted);
      }
      const full = History.from(rounds);
      expect(forward.result()).toEqual(backtest(full, dsl, { fromRoundId: rounds[12]!.id, toRoundId: 31 }));
    }
  });

  it('step(round) appends a new round, reads a stored one, and refuses one out of order', () => {
    const dsl = normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: B } });
    const shared = new History();
    const a = createRunner(dsl, shared);
    const b = createRunner(dsl, shared);
    a.step(flatRound(1, 3));
    expect(shared.length).toBe(1);
    // The same round through a second runner on the shared history is read, not appended.
    b.step(flatRound(1, 3));
    expect(shared.length).toBe(1);
    a.step(flatRound(2, 4));
    // b is now behind: its next round is 2, so round 3 is out of order.
    expect(() => b.step(flatRound(3, 3))).toThrow(/not the next round/);
    expect(b.step(flatRound(2, 4)).winningSquare).toBe(4);
    expect(() => a.step()).toThrow(/no next round/);
  });

  it('keeps deciding correctly while the history it appends to grows past its capacity', () => {
    const rounds = Array.from({ length: 40 }, (_, i) => fixtureRounds()[i % 30]!).map((r, i) => ({ ...r, id: i + 1 }));
    for (const base of ['spread', 'anti_spread', 'min_miners', 'hot', 'cold'] as const) {
      const dsl = normalizeDsl({ base_strategy: base, params: { bet_size_lamports: B }, filters: [{ metric: 'total_deployed_pctile', op: '>=', value: 0 }] });
      const live = createRunner(dsl, new History(2), { record: true });
      for (const round of rounds) live.step(round);
      expect(live.result().roundsBet).toBeGreaterThan(30);
      expect(live.result()).toEqual(backtest(History.from(rounds), dsl));
    }
  });

  it('decide() changes nothing', () => {
    const dsl = normalizeDsl({ base_strategy: 'hot', params: { bet_size_lamports: B, sizing_mode: 'fibonacci' } });
    const history = History.from(fixtureRounds());
    const plain = createRunner(dsl, history, { record: true });
    plain.runTo(history.length);
    const probed = createRunner(dsl, history, { record: true });
    for (let i = 0; i < history.length; i++) {
      expect(probed.decide()).toEqual(probed.decide());
      probed.step();
    }
    expect(probed.result()).toEqual(plain.result());
  });

  it('seek and observe are refused once the run has started', () => {
    const runner = createRunner(normalizeDsl({ base_strategy: 'corners', params: { bet_size_lamports: B } }), History.from(fixtureRounds()));
    runner.seek(3);
    runner.step();
    expect(() => runner.seek(10)).toThrow(/before the first round/);
    expect(() => runner.observe()).toThrow(/before the first round/);
  });

  it('a summary before any round has no range', () => {
    const runner = createRunner(normalizeDsl({ base_strategy: 'corners', params: { bet_size_lamports: B } }));
    expect(runner.summary()).toMatchObject({ totalRounds: 0, roundsBet: 0, rangeMin: null, rangeMax: null, exitRoundId: null, roiPercent: 0, winRate: 0 });
  });
});
