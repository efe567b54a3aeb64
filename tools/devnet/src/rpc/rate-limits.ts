/**
 * Per-method request budgets, as RPC providers enforce them (`getProgramAccounts` is
 * usually the most limited), in the format the indexer's RPC_LIMITS reads (see
 * `parseRpcLimits` of @gridlab/chain): `default=100/10s,getProgramAccounts=5/1s` allows
 * each method not named 100 requests in any 10 s and getProgramAccounts 5 in any second;
 * `all=` bounds every request together. Sliding windows over the times of the last
 * requests served: whatever window of that length one looks at, it never holds more than
 * the budget. Each item of a batch counts.
 */
import { budgetOf, NO_LIMITS, parseRpcLimits, SlidingWindow, type Budget, type RpcLimits } from '@gridlab/chain';

export { NO_LIMITS, parseRpcLimits, type RpcLimits };

/** Counters of one method. */
export interface MethodStats {
  readonly served: number;
  readonly refused: number;
  /** The most requests served within any window of the method's budget (null: no budget). */
  readonly maxServedInWindow: number | null;
  readonly budget: Budget | null;
}

export type BudgetDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterS: number };

interface MethodState {
  readonly budget: Budget | null;
  readonly window: SlidingWindow | null;
  served: number;
  refused: number;
  maxInWindow: number;
}

export class RpcBudgets {
  private readonly states = new Map<string, MethodState>();
  private readonly all: SlidingWindow | null;

  constructor(
    private readonly limits: RpcLimits,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.all = limits.all === null ? null : new SlidingWindow(limits.all, 0);
  }

  /** Counts a request of `method`; refuses it when its window (or the `all` window) already holds the budget. */
  take(method: string): BudgetDecision {
    const s = this.state(method);
    const now = this.nowMs();
    const wait = Math.max(s.window?.wait(1, now) ?? 0, this.all?.wait(1, now) ?? 0);
    if (wait > 0) {
      s.refused++;
      return { ok: false, retryAfterS: Math.max(1, Math.ceil(wait / 1000)) };
    }
    this.all?.record(1, now);
    s.served++;
    if (s.window !== null) {
      s.window.record(1, now);
      s.maxInWindow = Math.max(s.maxInWindow, s.window.inWindow(now));
    }
    return { ok: true };
  }

  /** Counters per method that has had a request. */
  stats(): Record<string, MethodStats> {
    const out: Record<string, MethodStats> = {};
    for (const [method, s] of [...this.states].sort(([a], [b]) => a.localeCompare(b))) {
      out[method] = { served: s.served, refused: s.refused, maxServedInWindow: s.budget === null ? null : s.maxInWindow, budget: s.budget };
    }
    return out;
  }

  private state(method: string): MethodState {
    let s = this.states.get(method);
    if (s === undefined) {
      const budget = budgetOf(this.limits, method);
      s = { budget, window: budget === null ? null : new SlidingWindow(budget, 0), served: 0, refused: 0, maxInWindow: 0 };
      this.states.set(method, s);
    }
    return s;
  }
}
