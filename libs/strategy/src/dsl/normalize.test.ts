import { InputError } from '@gridlab/errors';
import fc from 'fast-check';
import { canonicalDslJson, dslHash, normalizeDsl } from './normalize';
import { BASE_STRATEGIES, FILTER_METRICS, FILTER_OPS, SIZING_MODES } from './types';

function problems(input: unknown, basePath?: string): { path: string; message: string }[] {
  try {
    normalizeDsl(input, basePath);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('invalid_request');
    return [...((error as InputError).errors ?? [])];
  }
  throw new Error('expected a validation error');
}

describe('normalizeDsl', () => {
  it('fills every default of SPEC 7.1', () => {
    expect(normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: 1000 } })).toEqual({
      base_strategy: 'cold',
      params: {
        bet_size_lamports: 1000,
        sizing_mode: 'flat',
        num_squares: 5,
        drought_threshold: 50,
        hit_rate_lookback: 1000,
        row_index: 0,
        column_index: 0,
        martingale_multiplier: 2,
        loss_streak_threshold: 1,
        dalembert_step_lamports: 100_000,
        kelly_fraction: 0.25,
        kelly_bankroll_lamports: 1_000_000_000,
        max_bet_per_square_lamports: 100_000_000,
        tx_fee_lamports: 5000,
        cooldown_after_loss_rounds: 0,
        take_profit_lamports: 0,
        session_stop_loss_lamports: 0,
      },
      filters: [],
    });
  });

  it('floors integer params, then clamps every number into range', () => {
    const { params } = normalizeDsl({
      base_strategy: 'row',
      params: {
        bet_size_lamports: 5e9,
        num_squares: 7.9,
        drought_threshold: 0.5,
        hit_rate_lookback: 10,
        row_index: 4.99,
        column_index: -3,
        martingale_multiplier: 1.5,
        loss_streak_threshold: 101,
        dalembert_step_lamports: 0,
        kelly_fraction: 0,
        kelly_bankroll_lamports: -5,
        max_bet_per_square_lamports: 2e8,
        tx_fee_lamports: 1e9,
        stop_loss_streak: 5000.7,
        cooldown_after_loss_rounds: 2.5,
        take_profit_lamports: -1,
        session_stop_loss_lamports: 123.9,
      },
    });
    expect(params).toMatchObject({
      bet_size_lamports: 1e8,
      num_squares: 7,
      drought_threshold: 1,
      hit_rate_lookback: 50,
      row_index: 4,
      column_index: 0,
      martingale_multiplier: 1.5,
      loss_streak_threshold: 100,
      dalembert_step_lamports: 1,
      kelly_fraction: 0.0001,
      kelly_bankroll_lamports: 1,
      max_bet_per_square_lamports: 1e8,
      tx_fee_lamports: 1e7,
      stop_loss_streak: 1000,
      cooldown_after_loss_rounds: 2,
      take_profit_lamports: 0,
      session_stop_loss_lamports: 123,
    });
    // A bet below one lamport floors to 0, which the range (> 0) lifts to 1.
    expect(normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: 0.4 } }).params.bet_size_lamports).toBe(1);
  });

  it('keeps stop_loss_streak absent when off, and custom squares deduplicated, clamped and sorted', () => {
    const dsl = normalizeDsl({ base_strategy: 'custom_squares', params: { bet_size_lamports: 1, custom_squares: [24, 3.7, 30, 3, -1] } });
    expect(dsl.params.stop_loss_streak).toBeUndefined();
    expect('stop_loss_streak' in dsl.params).toBe(false);
    expect(dsl.params.custom_squares).toEqual([0, 3, 24]);
  });

  it('rejects unknown keys anywhere, naming each by its JSON path', () => {
    expect(
      problems({ base_strategy: 'cold', extra: 1, params: { bet_size_lamports: 1, foo: 2 }, filters: [{ metric: 'total_miners', op: '<', value: 1, x: 0 }] }),
    ).toEqual([
      { path: '/extra', message: 'is not an accepted property' },
      { path: '/params/foo', message: 'is not an accepted property' },
      { path: '/filters/0/x', message: 'is not an accepted property' },
    ]);
  });

  it('rejects wrong types, unknown enum values and a missing bet size, with paths under a prefix', () => {
    expect(problems({ base_strategy: 'cold', params: { bet_size_lamports: 1, row_index: '2' } }, '/dsl')).toEqual([
      { path: '/dsl/params/row_index', message: 'must be number' },
    ]);
    expect(problems({ base_strategy: 'lukewarm', params: { bet_size_lamports: 1 } })[0]).toEqual({
      path: '/base_strategy',
      message: `must be one of: ${BASE_STRATEGIES.join(', ')}`,
    });
    expect(problems({ base_strategy: 'cold', params: { bet_size_lamports: 1, sizing_mode: 'yolo' } })[0]!.path).toBe('/params/sizing_mode');
    expect(problems({ base_strategy: 'cold', params: {} })).toEqual([{ path: '/params/bet_size_lamports', message: 'is required' }]);
    expect(problems({ base_strategy: 'cold', params: { bet_size_lamports: 1 }, filters: [{ metric: 'vibes', op: '=', value: 'x' }] }).map((e) => e.path)).toEqual([
      '/filters/0/metric',
      '/filters/0/op',
      '/filters/0/value',
    ]);
    expect(problems('cold')).toEqual([{ path: '/', message: 'must be object' }]);
    expect(problems({ base_strategy: 'cold', params: { bet_size_lamports: null } })[0]!.path).toBe('/params/bet_size_lamports');
    expect(problems({ base_strategy: 'cold', params: { bet_size_lamports: Number.NaN } })[0]!.path).toBe('/params/bet_size_lamports');
  });

  it('requires non-empty custom_squares for base custom_squares', () => {
    expect(problems({ base_strategy: 'custom_squares', params: { bet_size_lamports: 1 } })).toEqual([
      { path: '/params/custom_squares', message: 'is required for base_strategy custom_squares' },
    ]);
    expect(problems({ base_strategy: 'custom_squares', params: { bet_size_lamports: 1, custom_squares: [] } }, '/dsl')).toEqual([
      { path: '/dsl/params/custom_squares', message: 'must not be empty' },
    ]);
  });

  it('accepts 16 filters and refuses 17', () => {
    const filter = { metric: 'total_miners', op: '>', value: 3 };
    expect(normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: 1 }, filters: Array(16).fill(filter) }).filters).toHaveLength(16);
    expect(problems({ base_strategy: 'cold', params: { bet_size_lamports: 1 }, filters: Array(17).fill(filter) })).toEqual([
      { path: '/filters', message: 'must have at most 16 items' },
    ]);
  });

  it('is idempotent, and its canonical JSON and hash ignore key order', () => {
    const raw = fc.record(
      {
        base_strategy: fc.constantFrom(...BASE_STRATEGIES),
        params: fc.record(
          {
            bet_size_lamports: fc.double({ min: -1e9, max: 1e10, noNaN: true, noDefaultInfinity: true }),
            sizing_mode: fc.constantFrom(...SIZING_MODES),
            num_squares: fc.double({ min: -5, max: 40, noNaN: true }),
            hit_rate_lookback: fc.integer({ min: -10, max: 50_000 }),
            martingale_multiplier: fc.double({ min: -3, max: 30, noNaN: true }),
            kelly_fraction: fc.double({ min: -1, max: 3, noNaN: true }),
            stop_loss_streak: fc.integer({ min: -3, max: 3000 }),
            custom_squares: fc.array(fc.integer({ min: -5, max: 40 }), { minLength: 1, maxLength: 30 }),
          },
          { requiredKeys: ['bet_size_lamports', 'custom_squares'] },
        ),
        filters: fc.array(fc.record({ metric: fc.constantFrom(...FILTER_METRICS), op: fc.constantFrom(...FILTER_OPS), value: fc.double({ noNaN: true, noDefaultInfinity: true }) }), {
          maxLength: 16,
        }),
      },
      { requiredKeys: ['base_strategy', 'params'] },
    );
    fc.assert(
      fc.property(raw, (input) => {
        const once = normalizeDsl(input);
        expect(normalizeDsl(once)).toEqual(once);
        const reversed = JSON.parse(JSON.stringify(once, (_k, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)));
        expect(canonicalDslJson(normalizeDsl(reversed))).toBe(canonicalDslJson(once));
        expect(dslHash(normalizeDsl(reversed))).toBe(dslHash(once));
      }),
      { numRuns: 300 },
    );
  });

  it('gives equal hashes to inputs that normalize alike, and different ones otherwise', () => {
    const a = normalizeDsl({ base_strategy: 'hot', params: { bet_size_lamports: 1000.9, num_squares: 5 } });
    const b = normalizeDsl({ params: { num_squares: 5.2, bet_size_lamports: 1000 }, base_strategy: 'hot' });
    const c = normalizeDsl({ base_strategy: 'hot', params: { bet_size_lamports: 1001 } });
    expect(dslHash(a)).toBe(dslHash(b));
    expect(dslHash(a)).not.toBe(dslHash(c));
    expect(dslHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(canonicalDslJson(a).startsWith('{"base_strategy":"hot","filters":[],"params":{"bet_size_lamports":1000,')).toBe(true);
  });
});
