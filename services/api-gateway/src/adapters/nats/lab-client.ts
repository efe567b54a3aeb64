import { requestChunked, type NatsConnection } from '@gridlab/bus';
import * as contracts from '@gridlab/contracts';

/** A lab result and whether lab-backtest served it from its analytics cache. */
export interface LabAnswer<T> {
  readonly result: T;
  readonly cache: 'hit' | 'miss' | undefined;
}

/**
 * The gateway's side of the Strategy Lab commands answered by lab-backtest (queue group
 * `lab-backtest`). The body is validated against the contract lab-backtest validates;
 * replies may arrive in chunks (results can exceed NATS' 1 MiB max payload) and are
 * reassembled and checked against the result contract. No responder → 503 with
 * Retry-After, no complete answer within the deadline → 504.
 */
export class LabClient {
  private readonly c: contracts.NatsNames['commands'];

  constructor(
    private readonly nc: NatsConnection,
    names: contracts.NatsNames,
    private readonly timeoutMs: number,
  ) {
    this.c = names.commands;
  }

  backtest(body: unknown, requestId: string): Promise<LabAnswer<contracts.BacktestResult>> {
    return this.send(this.c.labBacktest, contracts.validateBacktestRequest(body), contracts.validateBacktestResult, requestId);
  }

  analytics(body: unknown, requestId: string): Promise<LabAnswer<contracts.Analytics>> {
    return this.send(this.c.labAnalytics, contracts.validateAnalyticsRequest(body), contracts.validateAnalytics, requestId);
  }

  private async send<T>(subject: string, payload: unknown, result: contracts.Validator<T>, correlationId: string): Promise<LabAnswer<T>> {
    const reply = await requestChunked(this.nc, subject, payload, result, { timeoutMs: this.timeoutMs, correlationId });
    const cache = reply.headers?.get(contracts.CACHE_HEADER);
    return { result: reply.result, cache: cache === 'hit' || cache === 'miss' ? cache : undefined };
  }
}
