import * as contracts from '@gridlab/contracts';
import { CommandClient } from './command-client';

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
export class LabClient extends CommandClient {
  /** `client` (the subscriber id) lets lab-backtest queue fairly; the deadline lets it drop or stop a job nobody waits for. */
  backtest(body: unknown, requestId: string, client: string): Promise<LabAnswer<contracts.BacktestResult>> {
    return this.ask(this.c.labBacktest, contracts.validateBacktestRequest(body), contracts.validateBacktestResult, requestId, client);
  }

  analytics(body: unknown, requestId: string, client: string): Promise<LabAnswer<contracts.Analytics>> {
    return this.ask(this.c.labAnalytics, contracts.validateAnalyticsRequest(body), contracts.validateAnalytics, requestId, client);
  }

  private async ask<T>(subject: string, payload: unknown, result: contracts.Validator<T>, correlationId: string, client: string): Promise<LabAnswer<T>> {
    const reply = await this.sendChunked(subject, payload, result, correlationId, {
      [contracts.CLIENT_HEADER]: client,
      [contracts.DEADLINE_HEADER]: String(this.deadline()),
    });
    const cache = reply.headers?.get(contracts.CACHE_HEADER);
    return { result: reply.result, cache: cache === 'hit' || cache === 'miss' ? cache : undefined };
  }
}
