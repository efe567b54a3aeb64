import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

export interface TestNamespace {
  /** NATS subject prefix (see natsNames in @gridlab/contracts): streams are `<PREFIX>_*`. */
  readonly natsPrefix: string;
  /** Redis key prefix, `test:<random>:`. */
  readonly redisPrefix: string;
  readonly natsUrl: string;
  readonly redisUrl: string;
  /** Deletes this run's JetStream streams (KV buckets included) and Redis keys. */
  cleanup(): Promise<void>;
}

/** A private NATS and Redis namespace for one test run. */
export function testNamespace(): TestNamespace {
  const id = randomBytes(5).toString('hex');
  const natsPrefix = `t${id}`;
  const redisPrefix = `test:${id}:`;
  return {
    natsPrefix,
    redisPrefix,
    natsUrl: NATS_URL,
    redisUrl: REDIS_URL,
    cleanup: async () => {
      await deleteStreams(`${natsPrefix.toUpperCase()}_`);
      await deleteRedisKeys(redisPrefix);
    },
  };
}

async function deleteStreams(namePrefix: string): Promise<void> {
  const nc = await connect({ servers: NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) names.push(name);
    // KV bucket X is stream KV_X; object store bucket X is OBJ_X.
    const ours = names.filter((n) => [n, n.replace(/^(KV|OBJ)_/, '')].some((m) => m.startsWith(namePrefix)));
    await Promise.all(ours.map((n) => jsm.streams.delete(n)));
  } finally {
    await nc.close();
  }
}

async function deleteRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}
