import { acquireLeaderLock, type LeaderLock } from '@gridlab/db';
import type { Logger } from '@gridlab/logger';

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
  options: { readonly logger: Logger; readonly signal: AbortSignal; readonly retryMs?: number },
): Promise<LeaderLock | null> {
  const { logger, signal } = options;
  try {
    return await acquireLeaderLock(databaseUrl, name, {
      logger,
      signal,
      ...(options.retryMs === undefined ? {} : { retryMs: options.retryMs }),
      onLost: () => {
        logger.error('writer lock lost; exiting so a standby takes over');
        process.kill(process.pid, 'SIGTERM');
      },
    });
  } catch (error) {
    if (signal.aborted) return null;
    throw error;
  }
}
