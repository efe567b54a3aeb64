import type { AnalyticsResponse, BacktestResponse, StrategyDsl } from '@gridlab/client';
import { isGridlabApiError } from '@gridlab/client';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { Chart } from '../components/Chart';
import { described, Field } from '../components/Field';
import { ErrorBox, Stat } from '../components/Status';
import {
  BASE_STRATEGIES,
  fieldOf,
  FILTER_METRICS,
  FILTER_OPS,
  INITIAL_FORM,
  SIZING_MODES,
  SIZING_PARAMS,
  STRATEGY_PARAMS,
  toDsl,
  type FormState,
} from '../dsl-form';
import { int, pct, pValue, signedSol, sol } from '../format';

type Backtest = BacktestResponse['result'];
type Analytics = AnalyticsResponse['analytics'];
type Errors = Readonly<Record<string, string>>;

const LABELS: Partial<Record<keyof FormState, [string, string?]>> = {
  bet_size_sol: ['Bet size per square (SOL)', 'required; 0.000000001 to 0.1 SOL'],
  num_squares: ['Squares', '1 to 25'],
  drought_threshold: ['Drought threshold (rounds)', '1 to 1000'],
  hit_rate_lookback: ['Hit-rate lookback (rounds)', '50 to 20000'],
  row_index: ['Row', '0 (top) to 4'],
  column_index: ['Column', '0 (left) to 4'],
  custom_squares: ['Squares to bet', 'square numbers 0 to 24, separated by commas'],
  martingale_multiplier: ['Multiplier', '1 to 10'],
  loss_streak_threshold: ['Loss streak before sizing up', '1 to 100'],
  dalembert_step_sol: ['Step (SOL)', 'added after a loss, removed after a win'],
  kelly_fraction: ['Kelly fraction', '0.0001 to 1'],
  kelly_bankroll_sol: ['Bankroll (SOL)', ''],
  max_bet_per_square_sol: ['Cap per square (SOL)', 'empty: 0.1 SOL'],
  tx_fee_sol: ['Transaction fee (SOL)', 'per bet-round'],
  stop_loss_streak: ['Stop after losses in a row', 'empty: off'],
  take_profit_sol: ['Take profit at (SOL)', 'empty: off'],
  session_stop_loss_sol: ['Stop loss at (SOL)', 'empty: off'],
  cooldown_after_loss_rounds: ['Cooldown after a loss (rounds)', '0 to 500'],
  fromRoundId: ['From round', 'empty: the whole history'],
  toRoundId: ['To round', 'empty: the latest'],
};

function Input({ name, form, set, errors, type = 'text' }: { name: keyof FormState; form: FormState; set: (f: FormState) => void; errors: Errors; type?: string }) {
  const [label, hint] = LABELS[name] ?? [name];
  const id = `lab-${name}`;
  const error = errors[name];
  return (
    <Field id={id} label={label} {...(hint === undefined || hint === '' ? {} : { hint })} error={error}>
      <input
        {...described(id, hint !== undefined && hint !== '', error)}
        name={name}
        type={type}
        inputMode="decimal"
        value={form[name] as string}
        onInput={(e) => set({ ...form, [name]: (e.target as HTMLInputElement).value })}
      />
    </Field>
  );
}

function Select<T extends string>({ name, label, options, value, onChange, error }: { name: string; label: string; options: readonly T[]; value: T; onChange: (v: T) => void; error?: string | undefined }) {
  const id = `lab-${name}`;
  return (
    <Field id={id} label={label} error={error}>
      <select {...described(id, false, error)} name={name} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value as T)}>
        {options.map((o) => (
          <option key={o} value={o}>
            {o.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
    </Field>
  );
}

function drawdownOf(curve: readonly { balanceLamports: number }[]): number[] {
  let peak = 0;
  return curve.map((p) => {
    peak = Math.max(peak, p.balanceLamports);
    return -(peak - p.balanceLamports) / 1e9;
  });
}

function BacktestView({ result }: { result: Backtest }) {
  const x = result.equityCurve.map((p) => p.round);
  return (
    <section aria-labelledby="bt-title" data-testid="backtest-result">
      <h2 id="bt-title">Backtest, rounds {int(result.rangeMin)}–{int(result.rangeMax)}</h2>
      <div class="stats">
        <Stat label="Net profit" value={<span data-testid="net-profit">{signedSol(result.netProfitSol)}</span>} />
        <Stat label="ROI" value={`${result.roiPercent.toFixed(2)}%`} />
        <Stat label="Rounds bet" value={int(result.roundsBet)} />
        <Stat label="Rounds won" value={int(result.roundsWon)} />
        <Stat label="Max drawdown" value={`${result.maxDrawdownSol.toFixed(4)} SOL`} />
        <Stat label="Longest losing streak" value={int(result.maxStreak)} />
        {result.exitedEarly !== null && <Stat label="Stopped early" value={`${result.exitedEarly.replace(/_/g, ' ')} at round ${result.exitRoundId}`} />}
      </div>
      <Chart
        testId="equity-chart"
        x={x}
        series={[{ label: 'Net PnL (SOL)', values: result.equityCurve.map((p) => p.balanceLamports / 1e9), fill: true }]}
        label="Equity curve"
        summary={`net ${signedSol(result.netProfitSol)} over ${result.equityCurve.length} points`}
        xLabel="round"
        yLabel="SOL"
      />
      <Chart
        testId="drawdown-chart"
        x={x}
        series={[{ label: 'Drawdown (SOL)', values: drawdownOf(result.equityCurve), color: '--danger', fill: true }]}
        label="Drawdown from the running peak"
        summary={`largest ${result.maxDrawdownSol.toFixed(4)} SOL`}
        height={160}
        xLabel="round"
        yLabel="SOL"
      />
      <div class="table-wrap">
        <table class="data" data-testid="per-square">
          <caption>Per square (fees excluded)</caption>
          <thead>
            <tr>
              <th scope="col">Square</th>
              <th scope="col">Bets</th>
              <th scope="col">Wins</th>
              <th scope="col">Win rate</th>
              <th scope="col">Net</th>
            </tr>
          </thead>
          <tbody>
            {result.perSquare
              .filter((s) => s.betCount > 0)
              .map((s) => (
                <tr key={s.square}>
                  <th scope="row">#{s.square}</th>
                  <td class="num">{int(s.betCount)}</td>
                  <td class="num">{int(s.winCount)}</td>
                  <td class="num">{pct(s.betCount === 0 ? 0 : s.winCount / s.betCount)}</td>
                  <td class="num">{sol(s.netLamports)}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function Band({ label, band, unit }: { label: string; band: { p5: number; p50: number; p95: number; mean: number }; unit: string }) {
  // The track shows zero and the band with a margin on each side.
  const margin = (Math.max(band.p95, 0) - Math.min(band.p5, 0)) * 0.15 || 1;
  const lo = Math.min(band.p5, 0) - margin;
  const hi = Math.max(band.p95, 0) + margin;
  const span = hi - lo;
  const at = (v: number) => `${(((v - lo) / span) * 100).toFixed(2)}%`;
  return (
    <div class="band" role="img" aria-label={`${label}: 90% of resamples between ${band.p5.toFixed(4)} and ${band.p95.toFixed(4)} ${unit}, median ${band.p50.toFixed(4)}`}>
      <div class="band-label">{label}</div>
      <div class="band-track">
        <div class="band-zero" style={{ left: at(0) }} />
        <div class="band-range" style={{ left: at(band.p5), width: `calc(${at(band.p95)} - ${at(band.p5)})` }} />
        <div class="band-median" style={{ left: at(band.p50) }} />
      </div>
      <div class="band-values muted">
        p5 {band.p5.toFixed(4)} · median {band.p50.toFixed(4)} · p95 {band.p95.toFixed(4)} {unit}
      </div>
    </div>
  );
}

function AnalyticsView({ analytics }: { analytics: Analytics }) {
  const mc = analytics.monteCarlo;
  const chance = mc.randomOutcomes;
  const better = chance.pValue < 0.05;
  return (
    <section aria-labelledby="an-title" data-testid="analytics-result">
      <h2 id="an-title">Analytics to round {int(analytics.asOfRoundId)}</h2>
      <h3>Monte-Carlo band ({int(mc.iterations)} bootstrap resamples)</h3>
      <Band label="Net profit" band={mc.bootstrap.netProfitSol} unit="SOL" />
      <Band label="ROI" band={mc.bootstrap.roiPercent} unit="%" />
      <Band label="Max drawdown" band={mc.bootstrap.maxDrawdownSol} unit="SOL" />
      <p>
        Probability of profit: <strong>{pct(mc.bootstrap.probabilityOfProfit)}</strong>
      </p>
      <h3>Better than chance?</h3>
      <p data-testid="verdict" class={better ? 'good' : 'muted'}>
        {better
          ? `Yes, probably: with the same bets on uniformly random winners, a result this good happens with p = ${pValue(chance.pValue)}.`
          : `No: with the same bets on uniformly random winners, a result at least this good happens with p = ${pValue(chance.pValue)} (z = ${chance.zScore.toFixed(2)}).`}{' '}
        Expected under chance {signedSol(chance.expectedNetProfitSol)} ± {chance.stdDevSol.toFixed(4)} SOL.
      </p>
      <h3>Parameter sweeps</h3>
      <div class="sweeps">
        {analytics.sweeps.map((sweep) => {
          const numeric = sweep.results.every((r) => typeof r.value === 'number');
          const x = sweep.results.map((r, i) => (numeric ? (r.value as number) : i));
          return (
            <div key={sweep.param}>
              <Chart
                testId={`sweep-${sweep.param}`}
                x={x}
                series={[{ label: 'ROI (%)', values: sweep.results.map((r) => r.roiPercent), bars: !numeric }]}
                label={`ROI by ${sweep.param.replace(/_/g, ' ')}${numeric ? '' : ` (${sweep.results.map((r, i) => `${i}: ${String(r.value)}`).join(', ')})`}`}
                summary={sweep.results.map((r) => `${String(r.value)}: ${r.roiPercent.toFixed(2)}%`).join('; ')}
                height={160}
                xLabel={numeric ? sweep.param : 'mode'}
                yLabel="ROI %"
              />
            </div>
          );
        })}
      </div>
    </section>
  );
}

/** The Strategy Lab: the form for a DSL, backtest, analytics, and saving it as a paper-traded strategy. */
export function LabPage() {
  const [form, setForm] = useState<FormState>(INITIAL_FORM);
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<unknown>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [backtest, setBacktest] = useState<Backtest | null>(null);
  const [analytics, setAnalytics] = useState<Analytics | null>(null);
  const [name, setName] = useState('');
  const [saved, setSaved] = useState<string | null>(null);

  const run = async (what: string, call: () => Promise<void>) => {
    setBusy(what);
    setErrors({});
    setFailure(null);
    setSaved(null);
    try {
      await call();
    } catch (error) {
      if (isGridlabApiError(error) && error.errors.length > 0) {
        setErrors(Object.fromEntries(error.errors.map((e) => [fieldOf(e.path), e.message])));
      } else setFailure(error);
    } finally {
      setBusy(null);
    }
  };
  const range = () => ({
    ...(form.fromRoundId.trim() === '' ? {} : { fromRoundId: Number(form.fromRoundId) }),
    ...(form.toRoundId.trim() === '' ? {} : { toRoundId: Number(form.toRoundId) }),
  });
  const dsl: StrategyDsl = toDsl(form);

  const common = { form, set: setForm, errors };
  const setFilter = (i: number, key: 'metric' | 'op' | 'value', value: string) =>
    setForm({ ...form, filters: form.filters.map((f, j) => (j === i ? { ...f, [key]: value } : f)) });
  return (
    <section aria-labelledby="lab-title">
      <h1 id="lab-title">Strategy Lab</h1>
      <form
        class="lab-form"
        onSubmit={(e) => {
          e.preventDefault();
          void run('backtest', async () => setBacktest((await api.backtest({ dsl, ...range() })).result));
        }}
      >
        <fieldset>
          <legend>Strategy</legend>
          <Select name="base_strategy" label="Base strategy" options={BASE_STRATEGIES} value={form.base_strategy} onChange={(v) => setForm({ ...form, base_strategy: v })} error={errors['base_strategy']} />
          {STRATEGY_PARAMS[form.base_strategy].map((p) => (
            <Input key={p} name={p} {...common} />
          ))}
        </fieldset>
        <fieldset>
          <legend>Sizing</legend>
          <Input name="bet_size_sol" {...common} />
          <Select name="sizing_mode" label="Sizing mode" options={SIZING_MODES} value={form.sizing_mode} onChange={(v) => setForm({ ...form, sizing_mode: v })} error={errors['sizing_mode']} />
          {SIZING_PARAMS[form.sizing_mode].map((p) => (
            <Input key={p} name={p} {...common} />
          ))}
          <Input name="max_bet_per_square_sol" {...common} />
          <Input name="tx_fee_sol" {...common} />
        </fieldset>
        <fieldset>
          <legend>Stops</legend>
          <Input name="stop_loss_streak" {...common} />
          <Input name="take_profit_sol" {...common} />
          <Input name="session_stop_loss_sol" {...common} />
          <Input name="cooldown_after_loss_rounds" {...common} />
        </fieldset>
        <fieldset>
          <legend>Filters (bet only in rounds where all hold)</legend>
          {form.filters.map((f, i) => (
            <div class="filter-row" key={i}>
              <Select name={`filters-${i}-metric`} label="Metric" options={FILTER_METRICS} value={f.metric as (typeof FILTER_METRICS)[number]} onChange={(v) => setFilter(i, 'metric', v)} error={errors[`filters/${i}/metric`]} />
              <Select name={`filters-${i}-op`} label="Comparison" options={FILTER_OPS} value={f.op as (typeof FILTER_OPS)[number]} onChange={(v) => setFilter(i, 'op', v)} error={errors[`filters/${i}/op`]} />
              <Field id={`lab-filters-${i}-value`} label="Value" error={errors[`filters/${i}/value`]}>
                <input {...described(`lab-filters-${i}-value`, false, errors[`filters/${i}/value`])} value={f.value} onInput={(e) => setFilter(i, 'value', (e.target as HTMLInputElement).value)} />
              </Field>
              <button type="button" class="secondary" onClick={() => setForm({ ...form, filters: form.filters.filter((_, j) => j !== i) })}>
                Remove filter {i + 1}
              </button>
            </div>
          ))}
          <button type="button" class="secondary" onClick={() => setForm({ ...form, filters: [...form.filters, { metric: 'total_miners', op: '>', value: '0' }] })}>
            Add a filter
          </button>
        </fieldset>
        <fieldset>
          <legend>Rounds (backtest)</legend>
          <Input name="fromRoundId" {...common} />
          <Input name="toRoundId" {...common} />
        </fieldset>
        {errors['form'] !== undefined && <p class="field-error" role="alert">{errors['form']}</p>}
        <div class="actions">
          <button type="submit" disabled={busy !== null}>
            {busy === 'backtest' ? 'Backtesting…' : 'Backtest'}
          </button>
          <button type="button" disabled={busy !== null} onClick={() => void run('analytics', async () => setAnalytics((await api.analytics({ dsl })).analytics))}>
            {busy === 'analytics' ? 'Analysing (a few seconds)…' : 'Analytics'}
          </button>
        </div>
        <div class="save">
          <Field id="lab-name" label="Name" hint="to paper-trade this strategy on every new round" error={errors['name']}>
            <input {...described('lab-name', true, errors['name'])} value={name} maxLength={80} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          </Field>
          <button
            type="button"
            class="secondary"
            disabled={busy !== null}
            onClick={() =>
              void run('save', async () => {
                const created = await api.createStrategy({ name: name.trim(), dsl });
                setSaved(created.strategy.id);
              })
            }
          >
            Save as strategy
          </button>
          {saved !== null && (
            <p class="good" role="status">
              Saved: <a href={`#/strategies?id=${saved}`}>{saved}</a>. It is forward-tested from the next round.
            </p>
          )}
        </div>
      </form>
      {failure !== null && <ErrorBox error={failure} />}
      {busy !== null && (
        <p class="muted" role="status" aria-live="polite">
          Working…
        </p>
      )}
      {backtest !== null && <BacktestView result={backtest} />}
      {analytics !== null && <AnalyticsView analytics={analytics} />}
    </section>
  );
}

