import type { AnalyticsRequest, BacktestRequest } from '@gridlab/contracts';
import { dslHash, normalizeDsl, PAYOUT_REVISION, resolveWindow, type BacktestWindow, type History } from '@gridlab/strategy';
import { analyticsReply, type ComputeJob } from './compute';
import type { AnalyticsCachePort, ComputePort, JobCaller } from './ports';

/** SPEC 7.9: analytics are cached per latest-round bucket of this many round ids. */
const CACHE_BUCKET_ROUNDS = 100;

/** A reply ready to send, and whether it came from the analytics cache. */
export interface LabReply {
  readonly bytes: Uint8Array;
  readonly cached: boolean;
}

/**
 * The analytics cache key: the engine's payout revision (a result priced by other
 * arithmetic is never served), the normalized DSL's hash and the bucket of the latest round id.
 */
export function analyticsCacheKey(dslSha256: string, lastRoundId: number): string {
  return `${PAYOUT_REVISION}:${dslSha256}:${Math.floor(lastRoundId / CACHE_BUCKET_ROUNDS)}`;
}

/**
 * The Strategy Lab's backtest and analytics use cases. Input is checked here, on the
 * serving thread, because it is cheap and a bad DSL or window must not take a worker:
 * normalizeDsl names every problem by JSON path (under /dsl), resolveWindow names a bad
 * window. The replay itself runs on a worker (ComputePort).
 */
export class Lab {
  private readonly inflight = new Map<string, Promise<Uint8Array>>();

  /**
   * `analyticsShares`: the parts an analytics call is split into, each on its own worker
   * when they are free (the workers' count; the result is the same whatever it is).
   */
  constructor(
    private readonly history: () => History,
    private readonly compute: ComputePort,
    private readonly cache: AnalyticsCachePort,
    private readonly analyticsShares = 1,
  ) {}

  async backtest(request: BacktestRequest, caller: JobCaller = {}): Promise<LabReply> {
    const dsl = normalizeDsl(request.dsl, '/dsl');
    const window: BacktestWindow = {
      ...(request.fromRoundId === undefined ? {} : { fromRoundId: request.fromRoundId }),
      ...(request.toRoundId === undefined ? {} : { toRoundId: request.toRoundId }),
    };
    resolveWindow(this.history(), window);
    return { bytes: await this.compute.run({ kind: 'backtest', dsl, window }, caller), cached: false };
  }

  /**
   * Analytics over the default window, from the cache when this DSL was analysed within
   * the current 100-round bucket. Concurrent identical requests share one computation.
   */
  async analytics(request: AnalyticsRequest, caller: JobCaller = {}): Promise<LabReply> {
    const dsl = normalizeDsl(request.dsl, '/dsl');
    const window = resolveWindow(this.history());
    const key = analyticsCacheKey(dslHash(dsl), window.lastId);
    const hit = await this.cache.get(key);
    if (hit !== null) return { bytes: hit, cached: true };
    let pending = this.inflight.get(key);
    if (pending === undefined) {
      // Shared by identical requests: queued and timed by the first caller. Every share
      // ends its window at the round the cache key names.
      const of = this.analyticsShares;
      const jobs = Array.from({ length: of }, (_, index): ComputeJob => ({ kind: 'analytics', dsl, toRoundId: window.lastId, share: { index, of } }));
      pending = this.compute.runAll(jobs, caller).then(async (shares) => {
        const bytes = analyticsReply(dsl, shares);
        await this.cache.set(key, bytes);
        return bytes;
      });
      this.inflight.set(key, pending);
      const forget = (): void => void this.inflight.delete(key);
      pending.then(forget, forget);
    }
    return { bytes: await pending, cached: false };
  }
}
