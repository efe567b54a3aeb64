import type { Logger } from '@gridlab/logger';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export type { NatsConnection };

export interface BusOptions {
  readonly servers: string;
  /** Shown in the server's connection list: which service this is. */
  readonly name: string;
  readonly logger: Logger;
}

/**
 * Connects to NATS and keeps reconnecting forever (a NATS restart must not need an
 * operator), logging each disconnect and reconnect once.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.servers.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') options.logger.warn('nats disconnected', { server: status.server });
      else if (status.type === 'reconnect') options.logger.info('nats reconnected', { server: status.server });
    }
  })();
  return nc;
}
