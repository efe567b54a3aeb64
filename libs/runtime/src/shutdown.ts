import type { Logger } from '@gridlab/logger';

/** One named step of an orderly stop (stop accepting, drain, close pools...). */
export interface ShutdownStep {
  readonly name: string;
  readonly run: () => Promise<void>;
}

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * On SIGTERM or SIGINT runs `steps` in order, each awaited, and exits 0; exits 1 if
 * they have not finished within the deadline (in-flight work gets 10 s, SPEC 1).
 * A second signal while stopping is ignored: the deadline still bounds the stop.
 */
export function onShutdown(logger: Logger, steps: readonly ShutdownStep[], deadlineMs = DEFAULT_DEADLINE_MS): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => {
      logger.error('shutdown deadline exceeded; exiting', { deadlineMs });
      process.exit(1);
    }, deadlineMs);
    timer.unref();
    void (async () => {
      let failed = false;
      for (const step of steps) {
        try {
          await step.run();
        } catch (error) {
          failed = true;
          logger.error('shutdown step failed', { step: step.name, err: error });
        }
      }
      logger.info('stopped');
      process.exit(failed ? 1 : 0);
    })();
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
