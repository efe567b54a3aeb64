import type { NatsNames } from '@gridlab/contracts';
import { inboxPrefixFor } from './connect';

/** The services with their own NATS user (named as the service). */
export const NATS_SERVICES = ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-forward', 'lab-backtest'] as const;
export type NatsService = (typeof NATS_SERVICES)[number];

export interface NatsPermissions {
  readonly publish: readonly string[];
  readonly subscribe: readonly string[];
  /** Replies to requests the service received (its commands), up to `max` messages each (chunked replies). */
  readonly responses?: number;
}

/** What a service may do with a JetStream stream: keep it (create, update), consume it durably, read a KV bucket. */
function stream(name: string, use: { manage?: boolean; consume?: boolean; kvRead?: boolean }): string[] {
  return [
    `$JS.API.STREAM.INFO.${name}`,
    ...(use.manage === true ? [`$JS.API.STREAM.CREATE.${name}`, `$JS.API.STREAM.UPDATE.${name}`] : []),
    ...(use.consume === true
      ? [`$JS.API.CONSUMER.CREATE.${name}`, `$JS.API.CONSUMER.*.${name}.>`, `$JS.API.CONSUMER.DURABLE.CREATE.${name}.>`, `$JS.API.CONSUMER.MSG.NEXT.${name}.>`, `$JS.ACK.${name}.>`]
      : []),
    ...(use.kvRead === true ? [`$JS.API.DIRECT.GET.${name}.>`, `$JS.API.STREAM.MSG.GET.${name}`] : []),
  ];
}

/**
 * Each service's NATS permissions: only what it publishes and receives (docs/nats-subjects.md),
 * the JetStream API for its own streams, and its own reply inbox. Only billing publishes
 * billing facts; replies to a service's requests go to its inbox, which no other user may read.
 */
export function natsPermissions(names: NatsNames): Readonly<Record<NatsService, NatsPermissions>> {
  const { subjects: s, commands: c, streams, buckets } = names;
  const live = `KV_${buckets.live}`;
  const billingCommands = [c.pricing, c.subscribeStart, c.subscribeComplete, c.reissueStart, c.reissueComplete, c.keyRevoke];
  const labForwardCommands = [c.strategyCreate, c.strategyList, c.strategyGet, c.strategyUpdate, c.strategyDelete, c.strategyForward, c.leaderboardGet, c.leaderboardEntry];
  const labBacktestCommands = [c.labBacktest, c.labAnalytics];
  const inbox = (service: NatsService): string => `${inboxPrefixFor(service)}.>`;
  return {
    indexer: {
      publish: ['$JS.API.INFO', s.roundSettled, s.roundOpened, s.liveUpdated, `$KV.${buckets.live}.>`, ...stream(streams.rounds, { manage: true }), ...stream(live, { manage: true })],
      subscribe: [inbox('indexer')],
    },
    'api-gateway': {
      publish: ['$JS.API.INFO', ...billingCommands, ...labForwardCommands, ...labBacktestCommands, s.keyShared, ...stream(live, { manage: true, kvRead: true })],
      subscribe: [s.liveUpdated, s.eventAppended, s.keyRevoked, inbox('api-gateway')],
    },
    billing: {
      publish: ['$JS.API.INFO', s.subscriptionChanged, s.tierChanged, s.keyRevoked, ...stream(streams.billing, { manage: true })],
      subscribe: [...billingCommands, inbox('billing')],
      responses: 1,
    },
    'event-log': {
      publish: ['$JS.API.INFO', s.eventAppended, ...stream(streams.rounds, { manage: true, consume: true }), ...stream(streams.billing, { manage: true, consume: true })],
      subscribe: [inbox('event-log')],
    },
    'lab-forward': {
      publish: ['$JS.API.INFO', ...stream(streams.rounds, { manage: true, consume: true })],
      subscribe: [...labForwardCommands, inbox('lab-forward')],
      responses: 1,
    },
    'lab-backtest': {
      publish: [],
      subscribe: [...labBacktestCommands, s.roundSettled, inbox('lab-backtest')],
      // A result larger than one message is sent in chunks (respondChunked).
      responses: 10_000,
    },
  };
}

/**
 * The `authorization` block of a nats-server configuration giving each service its user
 * and permissions; `passwords` by service (k8s: from each service's Secret).
 */
export function natsAuthorization(names: NatsNames, passwords: Readonly<Record<NatsService, string>>): string {
  const permissions = natsPermissions(names);
  const list = (subjects: readonly string[]): string => `[${subjects.map((x) => JSON.stringify(x)).join(', ')}]`;
  const users = NATS_SERVICES.map((service) => {
    const p = permissions[service];
    const responses = p.responses === undefined ? '' : `, allow_responses: { max: ${p.responses}, expires: "10m" }`;
    return `    { user: ${JSON.stringify(service)}, password: ${JSON.stringify(passwords[service])}, permissions: { publish: { allow: ${list(p.publish)} }, subscribe: { allow: ${list(p.subscribe)} }${responses} } }`;
  });
  return `authorization {\n  users = [\n${users.join('\n')}\n  ]\n}\n`;
}
