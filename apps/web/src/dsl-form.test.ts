import { fieldOf, INITIAL_FORM, toDsl } from './dsl-form';

describe('the Strategy Lab form', () => {
  it('makes a DSL of the inputs that apply, amounts from SOL to lamports, empty inputs omitted', () => {
    expect(toDsl(INITIAL_FORM)).toEqual({
      base_strategy: 'cold',
      params: { sizing_mode: 'flat', bet_size_lamports: 10_000_000, num_squares: 5, hit_rate_lookback: 1000, tx_fee_lamports: 5000 },
    });
    const custom = toDsl({
      ...INITIAL_FORM,
      base_strategy: 'custom_squares',
      custom_squares: '1, 5 7',
      sizing_mode: 'kelly',
      stop_loss_streak: '4',
      filters: [{ metric: 'total_miners', op: '>', value: '10' }],
    });
    expect(custom).toEqual({
      base_strategy: 'custom_squares',
      params: {
        sizing_mode: 'kelly',
        bet_size_lamports: 10_000_000,
        custom_squares: [1, 5, 7],
        kelly_fraction: 0.25,
        kelly_bankroll_lamports: 1_000_000_000,
        tx_fee_lamports: 5000,
        stop_loss_streak: 4,
      },
      filters: [{ metric: 'total_miners', op: '>', value: 10 }],
    });
  });

  it('passes text that is not a number through, for the API to name', () => {
    expect((toDsl({ ...INITIAL_FORM, num_squares: 'five' }).params as Record<string, unknown>)['num_squares']).toBe('five');
    expect((toDsl({ ...INITIAL_FORM, bet_size_sol: '' }).params as Record<string, unknown>)['bet_size_lamports']).toBeUndefined();
  });

  it('puts each API field error at its input', () => {
    expect(fieldOf('/dsl/params/bet_size_lamports')).toBe('bet_size_sol');
    expect(fieldOf('/dsl/params/num_squares')).toBe('num_squares');
    expect(fieldOf('/dsl/filters/0/value')).toBe('filters/0/value');
    expect(fieldOf('/dsl/base_strategy')).toBe('base_strategy');
    expect(fieldOf('/fromRoundId')).toBe('fromRoundId');
    expect(fieldOf('/')).toBe('form');
  });
});
