import { consumeDurable } from '@gridlab/bus';
import { consumerMetrics } from '@gridlab/runtime';
import type { Platform } from './platform';
import { holdWriterLock } from './writer-lock';

/** A writer that catches up from PostgreSQL, its source of truth, whenever it is poked. */
export interface CatchUpWriter {
  /** Schedules a catch-up after any running one; resolves when it is done. */
  poke(): Promise<void>;
  /** Resolves once no catch-up is running; a writer without it is not waited for. */
  idle?(): Promise<void>;
}

/** A durable consumer of a stream whose every delivery pokes the writer. */
export interface WakeUp {
  readonly stream: string;
  readonly durable: string;
  /** One subject of the stream; absent: every subject. */
  readonly subject?: string;
}

export interface SingleWriterOptions<W extends CatchUpWriter> {
  readonly databaseUrl: string;
  /** The writer lock's name: one writer per name, a standby per other replica. */
  readonly lock: string;
  /** Builds the writer and loads its committed state, once this replica holds the lock. */
  readonly start: () => Promise<W>;
  /** Creates the streams the wake-ups read. */
  readonly ensureStreams: () => Promise<unknown>;
  readonly wakeUps: readonly WakeUp[];
  /** How often the writer is poked without a wake-up (a lost message costs at most this). */
  readonly catchUpMs: number;
}

/**
 * The single writer of a service (event-log, lab-forward): waits for the writer lock (a
 * standby waits here), starts the writer and catches up once, then pokes it on every
 * delivery of `wakeUps` and every `catchUpMs`. Each is owned by the platform as it is
 * acquired, so shutdown stops the timer and the consumers, lets the catch-up in flight
 * commit and releases the lock, in that order. Resolves with the writer, or with null
 * when shutdown began while this replica stood by.
 */
export async function runSingleWriter<W extends CatchUpWriter>(platform: Platform, options: SingleWriterOptions<W>): Promise<W | null> {
  const { logger, metrics, nc } = platform;
  // Registered while standing by too, so every replica exposes the same series.
  const delivered = consumerMetrics(metrics);
  const lock = await holdWriterLock(options.databaseUrl, options.lock, { logger, signal: platform.signal, metrics });
  if (lock === null) return null;
  platform.own('writer lock', lock, (held) => held.release());
  const writer = platform.own('writer', await options.start(), (started) => started.idle?.());
  const poke = (): Promise<void> => writer.poke().catch(() => undefined);
  await poke();

  await options.ensureStreams();
  for (const wakeUp of options.wakeUps) {
    // A message is acked once the catch-up it triggered has committed past it.
    const stop = await consumeDurable(nc, { ...wakeUp, logger, onDelivery: delivered(wakeUp.durable) }, () => writer.poke());
    platform.own(`consumer ${wakeUp.durable}`, stop, (consumer) => consumer().catch(() => undefined));
  }
  platform.own('catch-up timer', setInterval(() => void poke(), options.catchUpMs), clearInterval);
  return writer;
}
