import { requestChunkedRaw, requestCommand, type NatsConnection, type RawResult } from '@gridlab/bus';
import type * as contracts from '@gridlab/contracts';

/**
 * What the gateway's clients of the services' NATS commands share: the subjects, the
 * deadline, and one request helper that validates the reply against its contract and
 * carries the request id in the correlation header (no responder → 503, no answer in
 * time → 504).
 */
export abstract class CommandClient {
  protected readonly c: contracts.NatsNames['commands'];

  constructor(
    private readonly nc: NatsConnection,
    names: contracts.NatsNames,
    private readonly timeoutMs: number,
  ) {
    this.c = names.commands;
  }

  protected send<T>(subject: string, payload: unknown, result: contracts.Validator<T>, correlationId: string | undefined): Promise<T> {
    return requestCommand(this.nc, subject, payload, result, { timeoutMs: this.timeoutMs, correlationId });
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
