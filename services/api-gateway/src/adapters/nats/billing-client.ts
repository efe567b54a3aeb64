import * as contracts from '@gridlab/contracts';
import { CommandClient } from './command-client';

/**
 * The gateway's side of billing's commands (NATS request/reply). The HTTP body is the
 * command's request, checked against the table's schema before it is sent (sendCommand); the request id travels in the
 * correlation header; no responder → 503, no answer in time → 504.
 */
export class BillingClient extends CommandClient {
  pricing(requestId: string): Promise<contracts.Pricing> {
    return this.command('pricing', {}, requestId);
  }

  startSubscription(body: unknown, requestId: string): Promise<contracts.SubscriptionStart> {
    return this.command('subscribeStart', body as contracts.SubscribeStartRequest, requestId);
  }

  completeSubscription(body: unknown, requestId: string): Promise<contracts.IssuedKeyReply> {
    return this.command('subscribeComplete', body as contracts.SubscribeCompleteRequest, requestId);
  }

  startReissue(body: unknown, requestId: string): Promise<contracts.ReissueStart> {
    return this.command('reissueStart', body as contracts.ReissueStartRequest, requestId);
  }

  completeReissue(body: unknown, requestId: string): Promise<contracts.IssuedKeyReply> {
    return this.command('reissueComplete', body as contracts.ReissueCompleteRequest, requestId);
  }

  /** Key-sharing policy `revoke`: billing revokes the key and tombstones it for every replica. */
  async revokeKey(keyHash: Buffer, requestId?: string): Promise<boolean> {
    const request: contracts.KeyRevokeRequest = { keyHash: keyHash.toString('hex'), reason: 'key_sharing' };
    return (await this.command('keyRevoke', request, requestId)).revoked;
  }

  /** Sign-out: billing raises the subscriber's dashboard session epoch past `epoch`; the epoch now. */
  async endSessions(subscriberId: string, epoch: number, requestId?: string): Promise<number> {
    const request: contracts.SessionEndRequest = { subscriberId, epoch };
    return (await this.command('sessionEnd', request, requestId)).epoch;
  }
}
