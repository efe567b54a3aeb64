import type { Logger } from '@gridlab/logger';

/**
 * Runs `task` every `ms` milliseconds, never two at once (a tick while one runs is
 * skipped); a failure is logged and retried on the next tick. Returns the stop function.
 */
export function repeatEvery(ms: number, name: string, task: () => Promise<unknown>, logger: Logger): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch((error: unknown) => logger.warn(`${name} failed; retrying on the next tick`, { err: error }))
      .finally(() => (running = false));
  }, ms);
  return () => clearInterval(timer);
}
