import { UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';

/** One named step of an orderly stop: releasing one resource (stop accepting, drain, close a pool...). */
export interface ShutdownStep {
  readonly name: string;
  readonly run: () => Promise<void>;
}

/**
 * What a process holds, each registered where it is acquired together with how to release
 * it. stop() releases everything in reverse order of acquisition: what came later may use
 * what came before (a consumer its connection, a writer its lock), so it goes first. So a
 * service's wiring acquires things in order and its shutdown needs no bookkeeping.
 */
export class Resources {
  private readonly steps: ShutdownStep[] = [];
  /** Releases of resources acquired after stop() began, which stop() also waits for. */
  private readonly late: Promise<void>[] = [];
  private readonly stopping = new AbortController();
  private stopped: Promise<void> | null = null;

  constructor(private readonly logger: Logger) {}

  /** Aborted when stop() begins: start-up steps still waiting (a standby's lock, a retry loop) give up. */
  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  /**
   * Registers `resource`, acquired now, with how to release it, and returns it. Once stop()
   * has begun, the resource is released at once and this throws: the start-up step that
   * acquired it late (it was waiting when shutdown began) ends there.
   */
  own<T>(name: string, resource: T, release: (resource: T) => unknown): T {
    const step: ShutdownStep = { name, run: async () => void (await release(resource)) };
    if (this.stopped !== null) {
      this.late.push(this.run(step).catch(() => undefined));
      throw new UnavailableError(`${name} was acquired while stopping; released at once`, { code: 'stopping' });
    }
    this.steps.push(step);
    return resource;
  }

  /**
   * Releases everything, last acquired first, each step awaited. A step that fails is
   * logged and the others still run; the returned promise then rejects with the first
   * failure. Calling it again returns the same promise: nothing is released twice.
   */
  stop(): Promise<void> {
    return (this.stopped ??= this.releaseAll());
  }

  private async releaseAll(): Promise<void> {
    this.stopping.abort();
    const failures: unknown[] = [];
    for (const step of this.steps.splice(0).reverse()) await this.run(step).catch((error: unknown) => failures.push(error));
    await Promise.all(this.late);
    if (failures.length > 0) throw failures[0];
  }

  private async run(step: ShutdownStep): Promise<void> {
    try {
      await step.run();
    } catch (error) {
      this.logger.error('shutdown step failed', { step: step.name, err: error });
      throw error;
    }
  }
}

const DEFAULT_DEADLINE_MS = 10_000;

/**
 * Ends the process once `stop` has run: exit `code`, or 1 when it failed or has not
 * finished within the deadline (in-flight work gets 10 s).
 */
export async function stopAndExit(stop: () => Promise<void>, logger: Logger, code: 0 | 1, deadlineMs = DEFAULT_DEADLINE_MS): Promise<never> {
  const timer = setTimeout(() => {
    logger.error('shutdown deadline exceeded; exiting', { deadlineMs });
    process.exit(1);
  }, deadlineMs);
  timer.unref();
  const failed = await stop().then(
    () => false,
    () => true,
  );
  logger.info('stopped');
  process.exit(failed ? 1 : code);
}

/**
 * On SIGTERM or SIGINT releases `resources` and ends the process (see stopAndExit). A
 * second signal while stopping is ignored: the deadline still bounds the stop.
 */
export function stopOnSignals(resources: Resources, logger: Logger, deadlineMs = DEFAULT_DEADLINE_MS): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    void stopAndExit(() => resources.stop(), logger, 0, deadlineMs);
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
