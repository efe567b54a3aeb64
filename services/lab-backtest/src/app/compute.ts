import * as contracts from '@gridlab/contracts';
import { analyze, backtest, type BacktestWindow, type Dsl, type History } from '@gridlab/strategy';

/** One unit of heavy work, run on a worker thread over the shared history. */
export type ComputeJob =
  | { readonly kind: 'backtest'; readonly dsl: Dsl; readonly window: BacktestWindow }
  | { readonly kind: 'analytics'; readonly dsl: Dsl };

const encoder = new TextEncoder();

/**
 * Runs a job and returns the bytes of its successful reply (`{"ok":true,"result":...}`),
 * its result checked against the contract the gateway checks too. Serializing here, on
 * the worker, keeps the multi-megabyte JSON of a backtest off the serving thread.
 * Throws InputError for a window the history cannot serve. `yieldPoint` is called between
 * an analytics call's replays (see AnalyticsOptions.yieldPoint).
 */
export function computeReply(history: History, job: ComputeJob, yieldPoint?: () => void): Uint8Array {
  let result: contracts.BacktestResult | contracts.Analytics;
  if (job.kind === 'backtest') {
    // Typed assignment: the engine's result must stay assignable to the wire contract.
    const computed: contracts.BacktestResult = backtest(history, job.dsl, job.window);
    result = contracts.validateBacktestResult(computed);
  } else {
    const computed: contracts.Analytics = analyze(history, job.dsl, yieldPoint === undefined ? {} : { yieldPoint });
    result = contracts.validateAnalytics(computed);
  }
  return encoder.encode(JSON.stringify({ ok: true, result }));
}
