import type { Logger } from '@gridlab/logger';
import { connect, type NatsConnection } from '@nats-io/transport-node';

export type { NatsConnection };

export interface BusOptions {
  readonly servers: string;
  /**
   * Shown in the server's connection list: which service this is. It also names the
   * connection's reply inboxes (`_INBOX_<name>.`), so the server can let only this
   * service read the replies to its requests (k8s/engines/nats-values.yaml).
   */
  readonly name: string;
  readonly logger: Logger;
  /** The service's NATS user and password; empty or absent when the server asks for none. */
  readonly user?: string;
  readonly pass?: string;
}

/** Reply inboxes of each connection, by connection (requestChunked subscribes under it). */
const INBOX_PREFIXES = new WeakMap<NatsConnection, string>();

/** The reply-inbox prefix of a connection: `_INBOX_<name>` for connectBus's, else NATS' default. */
export function inboxPrefixOf(nc: NatsConnection): string {
  return INBOX_PREFIXES.get(nc) ?? '_INBOX';
}

/** `_INBOX_<name>`: a single subject token, whatever the connection's name holds. */
export function inboxPrefixFor(name: string): string {
  return `_INBOX_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/**
 * Connects to NATS and keeps reconnecting forever (a NATS restart must not need an
 * operator), logging each disconnect and reconnect once.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const inboxPrefix = inboxPrefixFor(options.name);
  const auth = options.user !== undefined && options.user !== '' ? { user: options.user, pass: options.pass ?? '' } : {};
  const nc = await connect({
    servers: options.servers.split(','),
    name: options.name,
    inboxPrefix,
    ...auth,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
  INBOX_PREFIXES.set(nc, inboxPrefix);
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') options.logger.warn('nats disconnected', { server: status.server });
      else if (status.type === 'reconnect') options.logger.info('nats reconnected', { server: status.server });
    }
  })();
  return nc;
}
