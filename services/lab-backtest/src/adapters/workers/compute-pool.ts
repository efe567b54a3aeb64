import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { InputError, TimeoutError, UnavailableError } from '@gridlab/errors';
import type { Logger } from '@gridlab/logger';
import { SPEC_BIG_ROUND_RULE, type BigRoundRule } from '@gridlab/strategy';
import type { ComputeJob } from '../../app/compute';
import type { ComputePort, JobCaller } from '../../app/ports';
import { FairQueue } from '../../domain/fair-queue';
import type { HistoryBuffers } from '../../domain/shared-history';
import type { FromWorker, ToWorker } from './protocol';

/**
 * The workers' code: the compiled bundle beside this file in a production build
 * (scripts/build.mjs), else the TypeScript source run like the services are in development
 * (tsx, through its CommonJS hook, resolved here so any cwd works).
 */
function workerEntry(): { readonly file: string; readonly execArgv: readonly string[] } {
  const compiled = join(__dirname, 'compute.worker.js');
  if (existsSync(compiled)) return { file: compiled, execArgv: [] };
  return { file: join(__dirname, 'compute.worker.ts'), execArgv: ['--require', require.resolve('tsx/cjs')] };
}
const WORKER = workerEntry();
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
  /**
   * Calls one client (Gridlab-Client) may run at once; default half the workers, at
   * least one, so one client's calls never hold every worker while another's wait. The
   * jobs of one call (runAll: an analytics call's shares) count once: they may take every
   * free worker, and another client's job is nested in them as soon as it is queued.
   * Jobs without a client are not limited.
   */
  readonly maxRunningPerClient?: number;
  /** The big_round rule of the `rounds_since_big_round` filter (EVENT_BIG_ROUND_*, as event-log's; default SPEC 6). */
  readonly bigRoundRule?: BigRoundRule;
  /** The history's current buffers and how many rounds of it jobs may read now. */
  readonly history: () => { readonly buffers: HistoryBuffers; readonly length: number };
  /** Called after each job with its kind, outcome and duration on the worker. */
  readonly observe?: (kind: ComputeJob['kind'], outcome: 'ok' | 'input' | 'error', seconds: number) => void;
  /** Called when a job is given up because its caller's deadline passed (queued: dropped; running: its worker stopped). */
  readonly abandoned?: (kind: ComputeJob['kind'], where: 'queued' | 'running') => void;
}

interface Pending {
  readonly id: number;
  /** The call the job belongs to (runAll gives its jobs one; run, each its own). */
  readonly call: number;
  readonly job: ComputeJob;
  readonly client: string;
  /** Epoch ms after which the caller no longer waits (null: only the queue wait applies). */
  readonly deadlineMs: number | null;
  readonly queuedAt: number;
  readonly resolve: (bytes: Uint8Array) => void;
  readonly reject: (error: Error) => void;
}

type Running = Pending & { startedAt: number; timer: NodeJS.Timeout | null };

interface Slot {
  readonly worker: Worker;
  busy: Running | null;
  /** The worker's second port: jobs nested in its running analytics call, and their replies. */
  readonly nestedPort: MessagePort;
  /** Another client's job running inside `busy` (an analytics call) at its yield points. */
  nested: Running | null;
  alive: boolean;
  /** Terminated on purpose (a job past its deadline): replaced at once, not after a failure pause. */
  cancelled: boolean;
}

/**
 * A fixed set of worker threads sharing the history's SharedArrayBuffers. Each worker
 * runs one job at a time; jobs queue fairly (round-robin across callers, each caller's
 * in arrival order). A job whose caller's deadline has passed is dropped from the queue,
 * or, running, has its worker terminated and replaced at once: nobody waits for it. A
 * worker that dies fails its job with a 503 and is replaced. Every worker hears about
 * new buffers before any later job. While a worker runs an analytics call (hundreds of
 * ms), one queued job of another client is nested in it: the worker runs it between the
 * call's replays, so a client's short backtest waits a few ms, not for another client's
 * whole analytics. An analytics call comes as shares (runAll), one on each free worker.
 */
export class ComputePool implements ComputePort {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Pending>();
  private nextId = 1;
  private nextCall = 1;
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
    return this.queue.length + this.slots.filter((s) => s.busy !== null).length + this.slots.filter((s) => s.nested !== null).length;
  }

  /** Jobs waiting for a worker. */
  get queued(): number {
    return this.queue.length;
  }

  /** Workers able to take jobs now. */
  get alive(): number {
    return this.slots.filter((s) => s.alive).length;
  }

  /** Tells every worker about new buffers (grown or rebuilt history). */
  setBuffers(buffers: HistoryBuffers): void {
    const message: ToWorker = { type: 'history', buffers };
    for (const slot of this.slots) {
      if (!slot.alive) continue;
      slot.worker.postMessage(message);
      // Nested jobs are read from the other port, possibly before the worker reads this one.
      slot.nestedPort.postMessage(message);
    }
  }

  run(job: ComputeJob, caller: JobCaller = {}): Promise<Uint8Array> {
    return this.runAll([job], caller).then(([bytes]) => bytes!);
  }

  /** Queues a call's jobs together (all or none); resolves with their bytes in order, or rejects with the first failure. */
  runAll(jobs: readonly ComputeJob[], caller: JobCaller = {}): Promise<Uint8Array[]> {
    if (this.stopping) return Promise.reject(new UnavailableError('the service is shutting down; retry shortly', { retryAfterSeconds: 1 }));
    if (this.queue.length + jobs.length > Math.max(this.options.maxQueue, jobs.length)) {
      return Promise.reject(new UnavailableError('every lab worker is busy; retry shortly', { retryAfterSeconds: BUSY_RETRY_S }));
    }
    const call = this.nextCall++;
    const queued = jobs.map(
      (job) =>
        new Promise<Uint8Array>((resolve, reject) => {
          const pending: Pending = { id: this.nextId++, call, job, client: caller.client ?? '', deadlineMs: caller.deadlineMs ?? null, queuedAt: performance.now(), resolve, reject };
          this.queue.push(pending.client, pending);
        }),
    );
    this.pump();
    return Promise.all(queued);
  }

  /** Refuses new jobs, waits for queued and running ones (bounded by the caller's shutdown deadline), then ends the workers. */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.depth > 0 && this.alive > 0) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(): Slot {
    const channel = new MessageChannel();
    const worker = new Worker(WORKER.file, { execArgv: [...WORKER.execArgv], workerData: { nested: channel.port2, bigRoundRule: this.options.bigRoundRule ?? SPEC_BIG_ROUND_RULE }, transferList: [channel.port2] });
    const slot: Slot = { worker, busy: null, nestedPort: channel.port1, nested: null, alive: true, cancelled: false };
    channel.port1.on('message', (message: FromWorker) => this.finishedNested(slot, message));
    const { buffers } = this.options.history();
    worker.postMessage({ type: 'history', buffers } satisfies ToWorker);
    worker.on('message', (message: FromWorker) => this.finished(slot, message));
    worker.on('error', (error) => this.logger.error('lab worker failed', { err: error }));
    worker.on('exit', (code) => {
      slot.alive = false;
      channel.port1.close();
      for (const running of [slot.busy, slot.nested]) {
        if (running === null) continue;
        if (running.timer !== null) clearTimeout(running.timer);
        running.reject(new UnavailableError('the computation was interrupted; retry shortly', { retryAfterSeconds: 1 }));
      }
      slot.busy = null;
      slot.nested = null;
      if (this.stopping) return;
      if (!slot.cancelled) this.logger.error('lab worker exited; replacing it', { code });
      setTimeout(() => {
        const index = this.slots.indexOf(slot);
        if (this.stopping || index < 0) return;
        this.slots[index] = this.spawn();
        this.pump();
      }, slot.cancelled ? 0 : RESPAWN_DELAY_MS);
    });
    return slot;
  }

  /** The caller of the running job has given up: stop its worker (replaced at once). */
  private cancel(slot: Slot, id: number): void {
    const job = slot.busy;
    if (job === null || job.id !== id) return;
    slot.busy = null;
    slot.cancelled = true;
    // Being terminated: it takes no job meanwhile (one would be lost with it).
    slot.alive = false;
    this.options.abandoned?.(job.job.kind, 'running');
    job.reject(new TimeoutError('the caller stopped waiting for this computation'));
    void slot.worker.terminate();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy !== null || !slot.alive) continue;
      const next = this.takeFresh();
      if (next === undefined) return;
      const untilDeadline = next.deadlineMs === null ? null : next.deadlineMs - Date.now();
      const timer = untilDeadline === null ? null : setTimeout(() => this.cancel(slot, next.id), Math.max(0, untilDeadline));
      slot.busy = { ...next, startedAt: performance.now(), timer };
      const message: ToWorker = { type: 'job', id: next.id, job: next.job, length: this.options.history().length };
      slot.worker.postMessage(message);
    }
    // Every worker busy: nest one job of another client in each running analytics call.
    for (const slot of this.slots) {
      const outer = slot.busy;
      if (outer === null || !slot.alive || slot.nested !== null || outer.job.kind !== 'analytics' || this.queue.length === 0) continue;
      // Not the call's own other shares: nested, they would only wait on this one's pauses.
      const next = this.takeFresh((client, job) => job.call !== outer.call && (client !== outer.client || client === ''));
      if (next === undefined) continue;
      const untilDeadline = next.deadlineMs === null ? null : next.deadlineMs - Date.now();
      // A nested job past its deadline is only given up: stopping it would stop the outer call too.
      const timer = untilDeadline === null ? null : setTimeout(() => this.abandonNested(slot, next.id), Math.max(0, untilDeadline));
      slot.nested = { ...next, startedAt: performance.now(), timer };
      const message: ToWorker = { type: 'job', id: next.id, job: next.job, length: this.options.history().length };
      slot.nestedPort.postMessage(message);
    }
  }

  private abandonNested(slot: Slot, id: number): void {
    const job = slot.nested;
    if (job === null || job.id !== id) return;
    slot.nested = null;
    this.options.abandoned?.(job.job.kind, 'running');
    job.reject(new TimeoutError('the caller stopped waiting for this computation'));
  }

  private finishedNested(slot: Slot, message: FromWorker): void {
    const job = slot.nested;
    if (job === null || job.id !== message.id) return; // given up at its deadline
    slot.nested = null;
    this.settle(job, message);
    this.pump();
  }

  /** The next queued job (fair order, clients under their cap of running calls) whose caller may still be waiting. */
  private takeFresh(accept: (client: string, next: Pending) => boolean = () => true): Pending | undefined {
    const cap = this.options.maxRunningPerClient ?? Math.max(1, Math.floor(this.options.size / 2));
    const running = new Map<string, Set<number>>();
    for (const slot of this.slots) {
      for (const job of [slot.busy, slot.nested]) {
        if (job === null) continue;
        const calls = running.get(job.client) ?? new Set<number>();
        running.set(job.client, calls.add(job.call));
      }
    }
    const eligible = (client: string, next: Pending): boolean => {
      if (!accept(client, next)) return false;
      const calls = running.get(client);
      return client === '' || calls === undefined || calls.has(next.call) || calls.size < cap;
    };
    for (;;) {
      const next = this.queue.shift(eligible);
      if (next === undefined) return undefined;
      const waited = performance.now() - next.queuedAt <= this.options.queueWaitMs;
      if (waited && (next.deadlineMs === null || Date.now() < next.deadlineMs)) return next;
      this.options.abandoned?.(next.job.kind, 'queued');
      next.reject(new TimeoutError(`the caller stopped waiting for a lab worker`));
    }
  }

  private finished(slot: Slot, message: FromWorker): void {
    const job = slot.busy;
    if (job === null || job.id !== message.id) {
      this.logger.error('lab worker answered a job it was not given', { id: message.id });
      return;
    }
    slot.busy = null;
    this.settle(job, message);
    this.pump();
  }

  /** Resolves or rejects a job with its worker's answer. */
  private settle(job: Running, message: FromWorker): void {
    if (job.timer !== null) clearTimeout(job.timer);
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
  }
}
