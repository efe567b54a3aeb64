import { requestChunkedRaw, sendCommand, type NatsConnection, type RawResult } from '@gridlab/bus';
import type * as contracts from '@gridlab/contracts';

/**
 * What the gateway's clients of the services' NATS commands share: the subjects, the
 * deadline, and one request helper that sends a command declared in the contracts' table,
 * checks its request and reply with the table's schemas and carries the request id in the
 * correlation header (no responder → 503, no answer in time → 504).
 */
export abstract class CommandClient {
  protected readonly c: contracts.NatsNames['commands'];

  constructor(
    private readonly nc: NatsConnection,
    private readonly names: contracts.NatsNames,
    private readonly timeoutMs: number,
  ) {
    this.c = names.commands;
  }

  /** Sends a command declared in the contracts' table: its request and result checked with the table's schemas (sendCommand). */
  protected command<K extends contracts.CommandName>(name: K, request: contracts.RequestOf<contracts.Commands[K]>, correlationId: string | undefined): Promise<contracts.ResultOf<contracts.Commands[K]>> {
    return sendCommand(this.nc, this.names, name, request, { timeoutMs: this.timeoutMs, correlationId });
  }

  /**
   * For replies that may arrive in chunks (results beyond NATS' max payload) and that
   * their responder validated before encoding: the result's JSON bytes, passed on as they
   * are (requestChunkedRaw).
   */
  protected sendChunkedRaw(subject: string, payload: unknown, correlationId: string, headers: Readonly<Record<string, string>> = {}): Promise<RawResult> {
    return requestChunkedRaw(this.nc, subject, payload, { timeoutMs: this.timeoutMs, correlationId, headers });
  }

  /** The deadline of a request sent now (epoch milliseconds). */
  protected deadline(): number {
    return Date.now() + this.timeoutMs;
  }
}
