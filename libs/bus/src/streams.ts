import { DUPLICATE_WINDOW_MS, type NatsNames } from '@gridlab/contracts';
import { StorageType, jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';

const NANOS_PER_MS = 1_000_000;

/**
 * Bounds of every JetStream stream: facts older than this are gone (consumers
 * catch up from PostgreSQL, the source of truth), and a stream never grows past this size
 * (oldest messages discarded first).
 */
export const STREAM_MAX_AGE_MS = 7 * 24 * 3600_000;
export const STREAM_MAX_BYTES = 1024 ** 3;

/**
 * Creates the ROUNDS stream (settled and opened rounds and their miners, deduplicated by Nats-Msg-Id
 * over 15 minutes, kept on file) or brings an existing one to this configuration.
 */
/** How JetStream keeps Gridlab's streams: replicas across the cluster's servers (1 on a single server). */
export interface StreamSettings {
  readonly replicas?: number;
}

export async function ensureRoundsStream(nc: NatsConnection, names: NatsNames, settings: StreamSettings = {}): Promise<void> {
  await ensureStream(nc, names.streams.rounds, [names.subjects.roundSettled, names.subjects.roundOpened, names.subjects.minersSettled], settings);
}

/** The BILLING stream of subscription and tier facts (same durability and deduplication). */
export async function ensureBillingStream(nc: NatsConnection, names: NatsNames, settings: StreamSettings = {}): Promise<void> {
  await ensureStream(nc, names.streams.billing, [names.subjects.subscriptionChanged, names.subjects.tierChanged], settings);
}

async function ensureStream(nc: NatsConnection, name: string, subjects: string[], settings: StreamSettings): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config: Partial<StreamConfig> & { name: string } = {
    name,
    subjects,
    storage: StorageType.File,
    duplicate_window: DUPLICATE_WINDOW_MS * NANOS_PER_MS,
    max_age: STREAM_MAX_AGE_MS * NANOS_PER_MS,
    max_bytes: STREAM_MAX_BYTES,
    num_replicas: settings.replicas ?? 1,
  };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.streams.add(config);
  }
}

/** The LIVE key-value bucket holding the latest snapshot (history 1). */
export async function openLiveBucket(nc: NatsConnection, names: NatsNames, settings: StreamSettings = {}): Promise<KV> {
  return new Kvm(nc).create(names.buckets.live, { history: 1, replicas: settings.replicas ?? 1 });
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && /not found/i.test(error.message);
}

/**
 * Deletes this namespace's JetStream streams (ROUNDS, BILLING) and the LIVE bucket, with
 * their durable consumers: starting over from genesis (`make reset`). Only these names;
 * returns those that existed.
 */
export async function deleteGridlabStreams(nc: NatsConnection, names: NatsNames): Promise<string[]> {
  const jsm = await jetstreamManager(nc);
  const deleted: string[] = [];
  // A KV bucket X is the stream KV_X.
  for (const stream of [names.streams.rounds, names.streams.billing, `KV_${names.buckets.live}`]) {
    try {
      await jsm.streams.delete(stream);
      deleted.push(stream);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return deleted;
}
