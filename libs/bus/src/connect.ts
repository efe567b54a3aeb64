import type { Logger } from '@gridlab/logger';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export type { NatsConnection };

export interface BusOptions {
  readonly servers: string;
  /** Shown in the server's connection list: which service this is; also names its reply inbox. */
  readonly name: string;
  readonly logger: Logger;
  /** The service's NATS user and password (a server with per-service permissions); absent: none. */
  readonly user?: string;
  readonly pass?: string;
}

const inboxes = new WeakMap<NatsConnection, string>();

/**
 * The reply inbox prefix of a connection: `_INBOX_<name>`, so a server can let only this
 * service read the replies to its requests (k8s/engines/nats-values.yaml).
 */
export function inboxPrefixOf(nc: NatsConnection): string | undefined {
  return inboxes.get(nc);
}

export function inboxPrefixFor(name: string): string {
  return `_INBOX_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * Connects to NATS and keeps reconnecting forever (a NATS restart must not need an
 * operator), logging each disconnect and reconnect once.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const inboxPrefix = inboxPrefixFor(options.name);
  const nc = await connect({
    servers: options.servers.split(','),
    name: options.name,
    inboxPrefix,
    ...(options.user === undefined || options.user === '' ? {} : { user: options.user, pass: options.pass ?? '' }),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
  inboxes.set(nc, inboxPrefix);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') options.logger.warn('nats disconnected', { server: status.server });
      else if (status.type === 'reconnect') options.logger.info('nats reconnected', { server: status.server });
    }
  })();
  return nc;
}
