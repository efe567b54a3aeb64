import { acquireLeaderLock, type LeaderLock } from '@gridlab/db';
import type { Logger } from '@gridlab/logger';
import { writerLockGauge, type Metrics } from '@gridlab/runtime';

/**
 * Waits until this replica holds the single-writer lock `name` (a standby waits here)
 * and resolves with it, or with null when `signal` aborts first (shutdown began).
 * Losing the lock later ends the process through its orderly SIGTERM shutdown, so a
 * standby takes over: the one failover style of every single writer (indexer, event-log,
 * lab-forward); the supervisor (Kubernetes, `make start`) restarts it as the new standby.
 */
export async function holdWriterLock(
  databaseUrl: string,
  name: string,
  options: {
    readonly logger: Logger;
    readonly signal: AbortSignal;
    readonly retryMs?: number;
    readonly metrics?: Metrics;
    /** Instead of ending the process (for a writer embedded in a test or bench process). */
    readonly onLost?: () => void;
  },
): Promise<LeaderLock | null> {
  const { logger, signal } = options;
  // `writer_lock_held{lock}`: 0 while standing by, 1 while writing (alert: no replica at 1).
  const held = options.metrics === undefined ? null : writerLockGauge(options.metrics).labels({ lock: name });
  held?.set(0);
  try {
    const lock = await acquireLeaderLock(databaseUrl, name, {
      logger,
      signal,
      ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
      onLost: () => {
        held?.set(0);
        if (options.onLost !== undefined) {
          logger.error('writer lock lost; standing by');
          options.onLost();
          return;
        }
        logger.error('writer lock lost; exiting so a standby takes over');
        process.kill(process.pid, 'SIGTERM');
      },
    });
    held?.set(1);
    if (held === null) return lock;
    return {
      ...lock,
      release: async () => {
        held.set(0);
        await lock.release();
      },
    };
  } catch (error) {
    if (signal.aborted) return null;
    throw error;
  }
}
