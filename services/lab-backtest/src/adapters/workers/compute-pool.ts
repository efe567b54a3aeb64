import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { InputError, TimeoutError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import type { ComputeJob } from '../../app/compute';
import type { ComputePort } from '../../app/lab';
import type { HistoryBuffers } from '../../domain/shared-history';
import type { FromWorker, ToWorker } from './protocol';

const WORKER_FILE = join(__dirname, 'compute.worker.ts');
/** Workers run TypeScript like the services do (tsx), through its CommonJS hook: resolved here, so any cwd works. */
const WORKER_EXEC_ARGV = ['--require', require.resolve('tsx/cjs')];
/** Seconds a caller refused for a full queue should wait. */
const BUSY_RETRY_S = 2;
/** Pause before replacing a dead worker, so a worker that cannot start does not spin. */
const RESPAWN_DELAY_MS = 1000;

export interface ComputePoolOptions {
  readonly size: number;
  /** Jobs waiting for a worker beyond which new ones are refused (503). */
  readonly maxQueue: number;
  /** A job still waiting after this long is dropped: its caller has given up. */
  readonly queueWaitMs: number;
  /** The history's current buffers and how many rounds of it jobs may read now. */
  readonly history: () => { readonly buffers: HistoryBuffers; readonly length: number };
  /** Called after each job with its kind, outcome and duration on the worker. */
  readonly observe?: (kind: ComputeJob['kind'], outcome: 'ok' | 'input' | 'error', seconds: number) => void;
}

interface Pending {
  readonly id: number;
  readonly job: ComputeJob;
  readonly queuedAt: number;
  readonly resolve: (bytes: Uint8Array) => void;
  readonly reject: (error: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  busy: (Pending & { startedAt: number }) | null;
  alive: boolean;
}

/**
 * A fixed set of worker threads sharing the history's SharedArrayBuffers. Each worker
 * runs one job at a time; jobs queue in arrival order. A worker that dies fails its job
 * with a 503 and is replaced. Every worker hears about new buffers before any later job.
 */
export class ComputePool implements ComputePort {
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private stopping = false;

  constructor(
    private readonly options: ComputePoolOptions,
    private readonly logger: Logger,
  ) {}

  start(): void {
    for (let i = 0; i < this.options.size; i++) this.slots.push(this.spawn());
  }

  /** Pending plus running jobs. */
  get depth(): number {
    return this.queue.length + this.slots.filter((s) => s.busy !== null).length;
  }

  /** Workers able to take jobs now. */
  get alive(): number {
    return this.slots.filter((s) => s.alive).length;
  }

  /** Tells every worker about new buffers (grown or rebuilt history). */
  setBuffers(buffers: HistoryBuffers): void {
    const message: ToWorker = { type: 'history', buffers };
    for (const slot of this.slots) if (slot.alive) slot.worker.postMessage(message);
  }

  run(job: ComputeJob): Promise<Uint8Array> {
    if (this.stopping) return Promise.reject(new UnavailableError('the service is shutting down; retry shortly', { retryAfterSeconds: 1 }));
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(new UnavailableError('every lab worker is busy; retry shortly', { retryAfterSeconds: BUSY_RETRY_S }));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, job, queuedAt: performance.now(), resolve, reject });
      this.pump();
    });
  }

  /** Refuses new jobs, waits for queued and running ones (bounded by the caller's shutdown deadline), then ends the workers. */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.depth > 0 && this.alive > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_FILE, { execArgv: WORKER_EXEC_ARGV });
    const slot: Slot = { worker, busy: null, alive: true };
    const { buffers } = this.options.history();
    worker.postMessage({ type: 'history', buffers } satisfies ToWorker);
    worker.on('message', (message: FromWorker) => this.finished(slot, message));
    worker.on('error', (error) => this.logger.error('lab worker failed', { err: error }));
    worker.on('exit', (code) => {
      slot.alive = false;
      if (slot.busy !== null) {
        slot.busy.reject(new UnavailableError('the computation was interrupted; retry shortly', { retryAfterSeconds: 1 }));
        slot.busy = null;
      }
      if (this.stopping) return;
      this.logger.error('lab worker exited; replacing it', { code });
      setTimeout(() => {
        const index = this.slots.indexOf(slot);
        if (this.stopping || index < 0) return;
        this.slots[index] = this.spawn();
        this.pump();
      }, RESPAWN_DELAY_MS);
    });
    return slot;
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy !== null || !slot.alive) continue;
      const next = this.takeFresh();
      if (next === undefined) return;
      slot.busy = { ...next, startedAt: performance.now() };
      const message: ToWorker = { type: 'job', id: next.id, job: next.job, length: this.options.history().length };
      slot.worker.postMessage(message);
    }
  }

  /** The oldest queued job whose caller may still be waiting. */
  private takeFresh(): Pending | undefined {
    for (;;) {
      const next = this.queue.shift();
      if (next === undefined) return undefined;
      if (performance.now() - next.queuedAt <= this.options.queueWaitMs) return next;
      next.reject(new TimeoutError(`waited more than ${this.options.queueWaitMs} ms for a lab worker`));
    }
  }

  private finished(slot: Slot, message: FromWorker): void {
    const job = slot.busy;
    if (job === null || job.id !== message.id) {
      this.logger.error('lab worker answered a job it was not given', { id: message.id });
      return;
    }
    slot.busy = null;
    const seconds = (performance.now() - job.startedAt) / 1000;
    if (message.type === 'done') {
      this.options.observe?.(job.job.kind, 'ok', seconds);
      job.resolve(message.bytes);
    } else if (message.input) {
      this.options.observe?.(job.job.kind, 'input', seconds);
      job.reject(new InputError(message.message, message.errors === undefined ? {} : { errors: message.errors }));
    } else {
      this.options.observe?.(job.job.kind, 'error', seconds);
      // toCommandError logs it once and answers a 503 that reveals nothing.
      job.reject(new Error(`lab worker: ${message.message}`));
    }
    this.pump();
  }
}
