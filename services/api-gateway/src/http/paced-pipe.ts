import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';
import { DumpPace } from '../domain/dump-pace';
import type { DumpSettings } from './app';

/**
 * Pipes a dump into the response with backpressure from the client's socket back to the
 * source, under the dump rules: a client that moved less than the minimum rate over the
 * last window (nothing, or a few KB now and then), or a dump past its maximum duration, is
 * destroyed (the source with it). A client that hangs up is not an error.
 */
export async function pipePaced(dumps: Omit<DumpSettings, 'rounds' | 'registry' | 'maxConcurrent'>, source: NodeJS.ReadableStream, res: Response): Promise<void> {
  const tickMs = Math.max(100, Math.floor(dumps.idleTimeoutMs / 4));
  const pace = new DumpPace({
    windowTicks: Math.max(1, Math.round(dumps.idleTimeoutMs / tickMs)),
    minBytesPerWindow: (dumps.minBytesPerSecond * dumps.idleTimeoutMs) / 1000,
    maxTicks: Math.max(1, Math.ceil(dumps.maxDurationMs / tickMs)),
  });
  // What the socket has taken is read off it at each tick: no extra stream stage on the hot path.
  const watchdog = setInterval(() => {
    if (pace.tick(res.socket?.bytesWritten ?? 0) !== 'continue') res.destroy();
  }, tickMs);
  try {
    await pipeline(source, res);
  } catch (error) {
    // Headers are sent: a client that hangs up (or is dropped) mid-stream is not worth a 500.
    if (!res.destroyed) throw error;
  } finally {
    clearInterval(watchdog);
  }
}
