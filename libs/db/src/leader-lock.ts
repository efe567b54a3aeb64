import { createHash } from 'node:crypto';
import type { Logger } from '@gridlab/logger';
import pg from 'pg';

export interface LeaderLockOptions {
  /** How often a standby retries the lock. */
  readonly retryMs?: number;
  /** Called once if the held lock is lost (its connection died): stop acting as leader. */
  readonly onLost?: (error: Error) => void;
  readonly logger?: Logger;
  /** Aborts waiting (a standby shutting down). */
  readonly signal?: AbortSignal;
}

export interface LeaderLock {
  /** Releases the lock and closes its connection. */
  release(): Promise<void>;
}

/** Stable 64-bit advisory lock key derived from a name. */
function lockKey(name: string): string {
  return createHash('sha256').update(name).digest().readBigInt64BE(0).toString();
}

/**
 * Waits until this process holds the session-level advisory lock `name` on a dedicated
 * connection, then resolves. PostgreSQL releases it when that connection ends, so a
 * killed leader frees it at once and a standby's next attempt (every `retryMs`) wins.
 * Writes guarded by the lock are idempotent anyway, so a brief overlap after a network
 * partition cannot double anything.
 */
export async function acquireLeaderLock(databaseUrl: string, name: string, options: LeaderLockOptions = {}): Promise<LeaderLock> {
  const retryMs = options.retryMs ?? 1000;
  const key = lockKey(name);
  let announcedStandby = false;
  for (;;) {
    if (options.signal?.aborted) throw new Error('leader lock wait aborted');
    const client = new pg.Client({ connectionString: databaseUrl, application_name: `leader:${name}`, keepAlive: true });
    try {
      await client.connect();
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS locked', [key]);
      if (rows[0]?.locked === true) return holdLock(client, key, name, options);
      if (!announcedStandby) options.logger?.info('standing by for leader lock', { lock: name });
      announcedStandby = true;
    } catch (error) {
      options.logger?.warn('leader lock attempt failed', { lock: name, err: error });
    }
    await client.end().catch(() => undefined);
    await sleep(retryMs, options.signal);
  }
}

function holdLock(client: pg.Client, key: string, name: string, options: LeaderLockOptions): LeaderLock {
  let released = false;
  options.logger?.info('leader lock acquired', { lock: name });
  const lost = (error: Error): void => {
    if (released) return;
    released = true;
    options.logger?.error('leader lock lost', { lock: name, err: error });
    options.onLost?.(error);
  };
  client.on('error', lost);
  client.on('end', () => lost(new Error('leader lock connection ended')));
  return {
    release: async () => {
      if (released) return;
      released = true;
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    // One listener at a time: a standby retrying for hours adds none for good.
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
