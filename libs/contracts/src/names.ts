/**
 * NATS names: subjects, JetStream streams, KV buckets and durable consumers. The only
 * place they are spelled. Everything is namespaced by an optional prefix so that test
 * runs (and side-by-side deployments) never see each other's traffic.
 */

const PREFIX_RE = /^[a-z][a-z0-9]{0,30}$/;

export interface NatsNames {
  readonly prefix: string;
  readonly subjects: {
    /** A round settled (JetStream, stream ROUNDS, Nats-Msg-Id = round id). */
    readonly roundSettled: string;
    /** The board moved to a new round (JetStream, stream ROUNDS, Nats-Msg-Id = `opened-<id>`). */
    readonly roundOpened: string;
    /** Latest live snapshot (core NATS, fire and forget; the KV bucket holds the latest). */
    readonly liveUpdated: string;
    /** A key was used from more client addresses than allowed (core NATS, for billing and operators). */
    readonly keyShared: string;
    /** A key was revoked (core NATS, from billing's revocation outbox; gateways drop it at once). */
    readonly keyRevoked: string;
    /** A subscriber's dashboard sessions below an epoch ended (core NATS, after billing's commit; gateways close them at once). */
    readonly sessionEnded: string;
    /** A subscription was activated, renewed or expired (JetStream, stream BILLING, Nats-Msg-Id = factId). */
    readonly subscriptionChanged: string;
    /** The active subscription count crossed a pricing threshold (JetStream, stream BILLING, Nats-Msg-Id = factId). */
    readonly tierChanged: string;
    /** An event was appended to the log (core NATS, after commit; readers fill gaps from PostgreSQL). */
    readonly eventAppended: string;
  };
  /** Billing's commands (request/reply, queue group `billing`). */
  readonly commands: {
    readonly pricing: string;
    readonly subscribeStart: string;
    readonly subscribeComplete: string;
    readonly reissueStart: string;
    readonly reissueComplete: string;
    readonly keyRevoke: string;
    /** Sign-out: ends a subscriber's dashboard sessions (billing raises its session epoch). */
    readonly sessionEnd: string;
    /** Strategy Lab backtest (request/reply, queue group `lab-backtest`; chunked replies). */
    readonly labBacktest: string;
    /** Strategy Lab analytics (request/reply, queue group `lab-backtest`; chunked replies). */
    readonly labAnalytics: string;
    /** Strategy records, forward stats and the leaderboard (request/reply, queue group `lab-forward`). */
    readonly strategyCreate: string;
    readonly strategyList: string;
    readonly strategyGet: string;
    readonly strategyUpdate: string;
    readonly strategyDelete: string;
    /** Brings back a deleted strategy of the owner until it is purged. */
    readonly strategyRestore: string;
    readonly strategyForward: string;
    readonly leaderboardGet: string;
    readonly leaderboardEntry: string;
  };
  readonly streams: { readonly rounds: string; readonly billing: string };
  /** Durable consumers (`<service>_<purpose>`), per stream: progress survives restarts, replicas share it. */
  readonly durables: {
    readonly labForwardSettled: string;
    readonly labForwardOpened: string;
    readonly eventLogRounds: string;
    readonly eventLogBilling: string;
  };
  /** Queue groups of the command responders (one replica answers each request). */
  readonly queues: { readonly billing: string; readonly labForward: string; readonly labBacktest: string };
  readonly buckets: { readonly live: string };
  /** Key of the latest snapshot inside the live bucket. */
  readonly liveKey: string;
}

/**
 * Builds every NATS name for a namespace prefix ('' in production). A prefix is
 * lower-case alphanumerics starting with a letter: it becomes the first subject token
 * and, upper-cased, the first part of stream and bucket names.
 */
export function natsNames(prefix = ''): NatsNames {
  if (prefix !== '' && !PREFIX_RE.test(prefix)) {
    throw new RangeError(`NATS prefix must match ${PREFIX_RE.source}`);
  }
  const s = (subject: string): string => (prefix === '' ? subject : `${prefix}.${subject}`);
  const n = (name: string): string => (prefix === '' ? name : `${prefix.toUpperCase()}_${name}`);
  return {
    prefix,
    subjects: {
      roundSettled: s('grid.round.settled'),
      roundOpened: s('grid.round.opened'),
      liveUpdated: s('grid.live.updated'),
      keyShared: s('access.key.shared'),
      keyRevoked: s('access.key.revoked'),
      sessionEnded: s('access.session.ended'),
      subscriptionChanged: s('billing.subscription.changed'),
      tierChanged: s('billing.tier.changed'),
      eventAppended: s('events.event.appended'),
    },
    commands: {
      pricing: s('billing.pricing.get'),
      subscribeStart: s('billing.subscription.start'),
      subscribeComplete: s('billing.subscription.complete'),
      reissueStart: s('billing.key.reissue-start'),
      reissueComplete: s('billing.key.reissue-complete'),
      keyRevoke: s('billing.key.revoke'),
      sessionEnd: s('billing.session.end'),
      labBacktest: s('lab.backtest.run'),
      labAnalytics: s('lab.analytics.run'),
      strategyCreate: s('lab.strategy.create'),
      strategyList: s('lab.strategy.list'),
      strategyGet: s('lab.strategy.get'),
      strategyUpdate: s('lab.strategy.update'),
      strategyDelete: s('lab.strategy.delete'),
      strategyRestore: s('lab.strategy.restore'),
      strategyForward: s('lab.strategy.forward'),
      leaderboardGet: s('lab.leaderboard.get'),
      leaderboardEntry: s('lab.leaderboard.entry'),
    },
    streams: { rounds: n('ROUNDS'), billing: n('BILLING') },
    durables: { labForwardSettled: 'lab-forward_settled', labForwardOpened: 'lab-forward_opened', eventLogRounds: 'event-log_rounds', eventLogBilling: 'event-log_billing' },
    queues: { billing: 'billing', labForward: 'lab-forward', labBacktest: 'lab-backtest' },
    buckets: { live: n('LIVE') },
    liveKey: 'snapshot',
  };
}

/** Duplicate window of every durable stream: a re-publish within it is dropped. */
export const DUPLICATE_WINDOW_MS = 15 * 60 * 1000;

/** Header carrying the HTTP request / correlation id across NATS. */
export const CORRELATION_HEADER = 'Gridlab-Correlation-Id';
