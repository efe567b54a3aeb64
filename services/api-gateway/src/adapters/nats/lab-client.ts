import * as contracts from '@gridlab/contracts';
import { CommandClient } from './command-client';

/** A lab result as the JSON bytes lab-backtest encoded, and whether it came from its analytics cache. */
export interface LabAnswer {
  readonly json: Uint8Array;
  readonly cache: 'hit' | 'miss' | undefined;
}

/**
 * The gateway's side of the Strategy Lab commands answered by lab-backtest (queue group
 * `lab-backtest`, as the NATS table declares them). The body is checked against the
 * table's request schema, the one lab-backtest checks;
 * replies may arrive in chunks (results can exceed NATS' 1 MiB max payload). The result
 * is checked against its contract by lab-backtest, on the worker that encodes it, and
 * passes through here as those bytes: a 200,000-round backtest is 1-3 MB of JSON that
 * would otherwise be parsed, validated and encoded again per request. No responder →
 * 503 with Retry-After, no complete answer within the deadline → 504.
 */
export class LabClient extends CommandClient {
  /** `client` (the subscriber id) lets lab-backtest queue fairly; the deadline lets it drop or stop a job nobody waits for. */
  backtest(body: unknown, requestId: string, client: string): Promise<LabAnswer> {
    return this.ask('labBacktest', body as contracts.BacktestRequest, requestId, client);
  }

  analytics(body: unknown, requestId: string, client: string): Promise<LabAnswer> {
    return this.ask('labAnalytics', body as contracts.AnalyticsRequest, requestId, client);
  }

  /** The body is checked against the table's request schema on its way (an InputError, never sent, when it breaks it). */
  private async ask<K extends 'labBacktest' | 'labAnalytics'>(name: K, body: contracts.RequestOf<contracts.Commands[K]>, correlationId: string, client: string): Promise<LabAnswer> {
    const reply = await this.commandRaw(name, body, correlationId, {
      [contracts.CLIENT_HEADER]: client,
      [contracts.DEADLINE_HEADER]: String(this.deadline()),
    });
    const cache = reply.headers?.get(contracts.CACHE_HEADER);
    return { json: reply.json, cache: cache === 'hit' || cache === 'miss' ? cache : undefined };
  }
}
