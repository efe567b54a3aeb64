import { sendCommand, sendCommandRaw, type NatsConnection, type RawResult } from '@gridlab/bus';
import type * as contracts from '@gridlab/contracts';

/**
 * What the gateway's clients of the services' NATS commands share: the deadline, and
 * request helpers that sends a command declared in the contracts' table,
 * checks its request and reply with the table's schemas and carries the request id in the
 * correlation header (no responder → 503, no answer in time → 504).
 */
export abstract class CommandClient {
  constructor(
    private readonly nc: NatsConnection,
    private readonly names: contracts.NatsNames,
    private readonly timeoutMs: number,
  ) {}

  /** Sends a command declared in the contracts' table: its request and result checked with the table's schemas (sendCommand). */
  protected command<K extends contracts.CommandName>(name: K, request: contracts.RequestOf<contracts.Commands[K]>, correlationId: string | undefined): Promise<contracts.ResultOf<contracts.Commands[K]>> {
    return sendCommand(this.nc, this.names, name, request, { timeoutMs: this.timeoutMs, correlationId });
  }

  /**
   * Sends a chunked command declared in the table whose server checked its result before
   * encoding it: the result's JSON bytes, passed on as they are (sendCommandRaw).
   */
  protected commandRaw<K extends contracts.CommandName>(
    name: K,
    request: contracts.RequestOf<contracts.Commands[K]>,
    correlationId: string,
    headers: Readonly<Record<string, string>> = {},
  ): Promise<RawResult> {
    return sendCommandRaw(this.nc, this.names, name, request, { timeoutMs: this.timeoutMs, correlationId, headers });
  }

  /** The deadline of a request sent now (epoch milliseconds). */
  protected deadline(): number {
    return Date.now() + this.timeoutMs;
  }
}
