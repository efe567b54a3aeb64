import { requestCommand, type NatsConnection } from '@gridlab/bus';
import * as contracts from '@gridlab/contracts';

/**
 * The gateway's side of billing's commands (NATS request/reply). The HTTP body is
 * validated against the same contract billing validates; the request id travels in the
 * correlation header; no responder → 503, no answer in time → 504.
 */
export class BillingClient {
  private readonly c: contracts.NatsNames['commands'];

  constructor(
    private readonly nc: NatsConnection,
    names: contracts.NatsNames,
    private readonly timeoutMs: number,
  ) {
    this.c = names.commands;
  }

  pricing(requestId: string): Promise<contracts.Pricing> {
    return this.send(this.c.pricing, {}, contracts.validatePricing, requestId);
  }

  startSubscription(body: unknown, requestId: string): Promise<contracts.SubscriptionStart> {
    return this.send(this.c.subscribeStart, contracts.validateSubscribeStartRequest(body), contracts.validateSubscriptionStart, requestId);
  }

  completeSubscription(body: unknown, requestId: string): Promise<contracts.IssuedKeyReply> {
    return this.send(this.c.subscribeComplete, contracts.validateSubscribeCompleteRequest(body), contracts.validateIssuedKey, requestId);
  }

  startReissue(body: unknown, requestId: string): Promise<contracts.ReissueStart> {
    return this.send(this.c.reissueStart, contracts.validateReissueStartRequest(body), contracts.validateReissueStart, requestId);
  }

  completeReissue(body: unknown, requestId: string): Promise<contracts.IssuedKeyReply> {
    return this.send(this.c.reissueComplete, contracts.validateReissueCompleteRequest(body), contracts.validateIssuedKey, requestId);
  }

  /** Key-sharing policy `revoke`: billing revokes the key and tombstones it for every replica. */
  async revokeKey(keyHash: Buffer, requestId?: string): Promise<boolean> {
    const request: contracts.KeyRevokeRequest = { keyHash: keyHash.toString('hex'), reason: 'key_sharing' };
    return (await this.send(this.c.keyRevoke, request, contracts.validateKeyRevokeReply, requestId)).revoked;
  }

  private send<T>(subject: string, payload: unknown, result: contracts.Validator<T>, correlationId: string | undefined): Promise<T> {
    return requestCommand(this.nc, subject, payload, result, { timeoutMs: this.timeoutMs, correlationId });
  }
}
