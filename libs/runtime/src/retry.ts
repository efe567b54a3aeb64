import type { Logger } from '@gridlab/logger';

/**
 * Runs `step` until it succeeds, waiting `intervalMs` between attempts: for start-up
 * work that needs what another service creates (its schema, its first rows), since all
 * services start together. The first failure is logged as a warning, later ones at
 * debug. Rejects only when `signal` aborts (the process is shutting down).
 */
export async function retryUntilDone<T>(
  what: string,
  step: () => Promise<T>,
  options: { readonly logger: Logger; readonly signal: AbortSignal; readonly intervalMs?: number },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (options.signal.aborted) throw new Error(`${what}: aborted`);
    try {
      return await step();
    } catch (error) {
      if (attempt === 1) options.logger.warn(`${what} failed; retrying until it succeeds`, { err: error });
      else options.logger.debug(`${what} failed again`, { attempt, err: error });
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
  }
}
