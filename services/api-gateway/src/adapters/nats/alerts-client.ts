import * as contracts from '@gridlab/contracts';
import { CommandClient } from './command-client';

/**
 * The gateway's side of the notifier's commands: alert rules, their secrets, test pings
 * and delivery log. HTTP bodies are checked against the body contracts here; the notifier
 * checks each kind's fields. The caller's subscriber id (from its key) travels with every
 * command: the subscriber owns its rules. No responder → 503, no answer in time → 504.
 */
export class AlertsClient extends CommandClient {
  create(subscriberId: string, body: unknown, requestId: string): Promise<contracts.AlertCreatedReply> {
    return this.command('alertCreate', { subscriberId, body: contracts.validatorOf(contracts.alertCreateBodySchema)(body) }, requestId);
  }

  list(subscriberId: string, requestId: string): Promise<contracts.AlertListReply> {
    return this.command('alertList', { subscriberId }, requestId);
  }

  get(subscriberId: string, id: string, requestId: string): Promise<contracts.AlertReply> {
    return this.command('alertGet', { subscriberId, id }, requestId);
  }

  update(subscriberId: string, id: string, body: unknown, requestId: string): Promise<contracts.AlertReply> {
    return this.command('alertUpdate', { subscriberId, id, body: contracts.validatorOf(contracts.alertUpdateBodySchema)(body) }, requestId);
  }

  delete(subscriberId: string, id: string, requestId: string): Promise<contracts.AlertDeleteReply> {
    return this.command('alertDelete', { subscriberId, id }, requestId);
  }

  rotateSecret(subscriberId: string, id: string, requestId: string): Promise<contracts.AlertSecretReply> {
    return this.command('alertRotateSecret', { subscriberId, id }, requestId);
  }

  test(subscriberId: string, id: string, requestId: string): Promise<contracts.AlertTestReply> {
    return this.command('alertTest', { subscriberId, id }, requestId);
  }

  deliveries(subscriberId: string, id: string, requestId: string): Promise<contracts.AlertDeliveriesReply> {
    return this.command('alertDeliveries', { subscriberId, id }, requestId);
  }

  redeliver(subscriberId: string, id: string, firingId: number, requestId: string): Promise<contracts.AlertRedeliverReply> {
    return this.command('alertRedeliver', { subscriberId, id, firingId }, requestId);
  }
}
