import { BASE_STRATEGIES, History, analyze, backtest, normalizeDsl } from '@gridlab/strategy';
import { syntheticRounds } from '@gridlab/testing';
import { analyticsReply, computeReply } from './compute';

const decode = (bytes: Uint8Array): unknown => JSON.parse(new TextDecoder().decode(bytes));

describe('computing a reply on a worker', () => {
  const history = History.from(syntheticRounds(3000, { seed: 21, voidedRate: 0.02 }));

  it.each(BASE_STRATEGIES)('answers %s with the engine’s own backtest and analytics, within the wire contracts', (base) => {
    const dsl = normalizeDsl({
      base_strategy: base,
      params: { bet_size_lamports: 2_000_000, sizing_mode: 'martingale', stop_loss_streak: 40, ...(base === 'custom_squares' ? { custom_squares: [3, 7] } : {}) },
      filters: [{ metric: 'total_deployed_pctile', op: '<=', value: 90 }],
    });
    const window = { fromRoundId: 500, toRoundId: 2800 };
    expect(decode(computeReply(history, { kind: 'backtest', dsl, window }))).toEqual({ ok: true, result: backtest(history, dsl, window) });
    const share = (index: number) => computeReply(history, { kind: 'analytics', dsl, toRoundId: 2900, share: { index, of: 2 } });
    const whole = decode(new TextEncoder().encode(JSON.stringify({ ok: true, result: analyze(history, dsl, { toRoundId: 2900 }) })));
    expect(decode(analyticsReply(dsl, [share(1), share(0)]))).toEqual(whole);
    // A call's only share is merged on its worker: its bytes are the reply.
    const lone = computeReply(history, { kind: 'analytics', dsl, toRoundId: 2900, share: { index: 0, of: 1 } });
    expect(decode(lone)).toEqual(whole);
    expect(analyticsReply(dsl, [lone])).toBe(lone);
  });

  it('throws the engine’s InputError for a window the history cannot serve', () => {
    const dsl = normalizeDsl({ base_strategy: 'corners', params: { bet_size_lamports: 1 } });
    expect(() => computeReply(history, { kind: 'backtest', dsl, window: { fromRoundId: 10_000 } })).toThrow(/no stored round/);
  });
});
