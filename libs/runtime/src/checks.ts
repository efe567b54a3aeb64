import type { ReadinessCheck } from './ops-server';

/** The slice of a pg Pool a readiness check needs. */
interface Queryable {
  query(sql: string): Promise<unknown>;
}

/** The slice of a NATS connection a readiness check needs. */
interface Flushable {
  isClosed(): boolean;
  flush(): Promise<void>;
}

/** The slice of an ioredis client a readiness check needs. */
interface Pingable {
  ping(): Promise<string>;
}

/** PostgreSQL answers `SELECT 1`. */
export function postgresCheck(pool: Queryable): ReadinessCheck {
  return async () => {
    await pool.query('SELECT 1');
  };
}

/** The NATS connection is open and the server answers a flush (a PING round trip). */
export function natsCheck(nc: Flushable): ReadinessCheck {
  return async () => {
    if (nc.isClosed()) throw new Error('connection closed');
    await nc.flush();
  };
}

/** Redis answers PING. */
export function redisCheck(redis: Pingable): ReadinessCheck {
  return async () => {
    await redis.ping();
  };
}
