/**
 * NATS names: subjects (declared in the NATS table, ./bus), JetStream streams, KV buckets,
 * queue groups and durable consumers. Everything is namespaced by an optional prefix so
 * that test runs (and side-by-side deployments) never see each other's traffic.
 */
import { COMMANDS, EVENTS } from './bus';

const PREFIX_RE = /^[a-z][a-z0-9]{0,30}$/;

/** Queue groups of the command responders (one replica answers each request). */
export const QUEUES = { billing: 'billing', labForward: 'lab-forward', labBacktest: 'lab-backtest', notifier: 'notifier' } as const;

/** JetStream streams, before the prefix. */
export const STREAMS = { rounds: 'ROUNDS', billing: 'BILLING' } as const;

/**
 * Builds every NATS name for a namespace prefix ('' in production). A prefix is
 * lower-case alphanumerics starting with a letter: it becomes the first subject token
 * and, upper-cased, the first part of stream and bucket names. Subjects come from the
 * NATS table (`COMMANDS`, `EVENTS`), where each is declared with what travels on it.
 */
export function natsNames(prefix = '') {
  if (prefix !== '' && !PREFIX_RE.test(prefix)) {
    throw new RangeError(`NATS prefix must match ${PREFIX_RE.source}`);
  }
  const s = (subject: string): string => (prefix === '' ? subject : `${prefix}.${subject}`);
  const n = (name: string): string => (prefix === '' ? name : `${prefix.toUpperCase()}_${name}`);
  return {
    prefix,
    subjects: subjectsOf(EVENTS, s),
    commands: subjectsOf(COMMANDS, s),
    streams: { rounds: n(STREAMS.rounds), billing: n(STREAMS.billing) },
    /** Durable consumers (`<service>_<purpose>`), per stream: progress survives restarts, replicas share it. */
    durables: { labForwardSettled: 'lab-forward_settled', labForwardOpened: 'lab-forward_opened', eventLogRounds: 'event-log_rounds', eventLogBilling: 'event-log_billing' },
    queues: QUEUES,
    buckets: { live: n('LIVE') },
    /** Key of the latest snapshot inside the live bucket. */
    liveKey: 'snapshot',
  } as const;
}

export type NatsNames = ReturnType<typeof natsNames>;

/** Each declaration's subject under the prefix, by the declaration's name. */
function subjectsOf<K extends string>(table: Readonly<Record<K, { readonly subject: string }>>, prefixed: (subject: string) => string): { readonly [N in K]: string } {
  const subjects = {} as Record<K, string>;
  for (const name of Object.keys(table) as K[]) subjects[name] = prefixed(table[name].subject);
  return subjects;
}

/** Duplicate window of every durable stream: a re-publish within it is dropped. */
export const DUPLICATE_WINDOW_MS = 15 * 60 * 1000;

/** Header carrying the HTTP request / correlation id across NATS. */
export const CORRELATION_HEADER = 'Gridlab-Correlation-Id';
