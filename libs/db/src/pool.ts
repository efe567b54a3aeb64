import pg from 'pg';

const INT8_OID = 20;

/**
 * int8 columns arrive as strings by default; ours hold lamports and ids, all below
 * 2^53 by construction (rejected at ingestion otherwise), so parse them to numbers and
 * fail loudly if that invariant is ever broken.
 */
pg.types.setTypeParser(INT8_OID, (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${value} exceeds 2^53 - 1`);
  return n;
});

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  readonly max?: number;
  /** Shown in pg_stat_activity: which service holds a connection. */
  readonly applicationName?: string;
  /** PostgreSQL's idle_in_transaction_session_timeout for these connections: a transaction left waiting longer is ended by the server. */
  readonly idleInTransactionTimeoutMs?: number;
}

/** A connection pool with bounded waits, so a dead database fails requests instead of hanging them. */
export function createPool(url: string, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName ?? 'gridlab',
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    query_timeout: 60_000,
    keepAlive: true,
    ...(options.idleInTransactionTimeoutMs === undefined ? {} : { idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs }),
  });
  // An idle client losing its connection (database restart) must not crash the process:
  // the pool drops it and the next query opens a new one.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs `fn` in a transaction on one pooled client: COMMIT on success, ROLLBACK on throw. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
