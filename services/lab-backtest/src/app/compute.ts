import * as contracts from '@gridlab/contracts';
import { analyzeShare, backtest, mergeAnalytics, type AnalyticsPart, type AnalyticsShare, type BacktestWindow, type Dsl, type History } from '@gridlab/strategy';

// Results are checked against the NATS table here, on the worker that encodes them: the gateway passes their bytes on.
const checkBacktest = contracts.commandValidators('labBacktest').result;
const checkAnalytics = contracts.commandValidators('labAnalytics').result;

/** One unit of heavy work, run on a worker thread over the shared history. */
export type ComputeJob =
  | { readonly kind: 'backtest'; readonly dsl: Dsl; readonly window: BacktestWindow }
  /** One share of an analytics call over the default window ending at `toRoundId` (the shares run side by side). */
  | { readonly kind: 'analytics'; readonly dsl: Dsl; readonly toRoundId: number; readonly share: AnalyticsShare };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Runs a job and returns its bytes: for a backtest, its successful reply
 * (`{"ok":true,"result":...}`), the result checked against the contract the gateway
 * checks too (serializing here, on the worker, keeps the multi-megabyte JSON of a
 * backtest off the serving thread); for an analytics share, its part as JSON, for
 * analyticsReply, unless it is the call's only share: then the whole reply, merged and
 * checked here too. Throws InputError for a window the history cannot serve.
 * `yieldPoint` is called between an analytics share's replays (see
 * AnalyticsOptions.yieldPoint).
 */
export function computeReply(history: History, job: ComputeJob, yieldPoint?: () => void): Uint8Array {
  if (job.kind === 'backtest') {
    // Typed assignment: the engine's result must stay assignable to the wire contract.
    const computed: contracts.BacktestResult = backtest(history, job.dsl, job.window);
    return encoder.encode(JSON.stringify({ ok: true, result: checkBacktest(computed) }));
  }
  const part = analyzeShare(history, job.dsl, job.share, { toRoundId: job.toRoundId, ...(yieldPoint === undefined ? {} : { yieldPoint }) });
  return job.share.of === 1 ? reply(mergeAnalytics(job.dsl, [part])) : encoder.encode(JSON.stringify(part));
}

/**
 * The successful reply to an analytics call from its shares' bytes (computeReply's, any
 * order): a lone share's bytes are the reply already; several are merged, checked
 * against the wire contract and serialized on the serving thread (a few KB).
 */
export function analyticsReply(dsl: Dsl, shares: readonly Uint8Array[]): Uint8Array {
  if (shares.length === 1) return shares[0]!;
  return reply(mergeAnalytics(dsl, shares.map((bytes) => JSON.parse(decoder.decode(bytes)) as AnalyticsPart)));
}

function reply(computed: contracts.Analytics): Uint8Array {
  return encoder.encode(JSON.stringify({ ok: true, result: checkAnalytics(computed) }));
}
