import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The lab's Prometheus metrics; `pendingJobs` is read at each scrape. */
export function labMetrics(registry: Registry, sources: { readonly pendingJobs: () => number; readonly workers: () => number }) {
  return {
    workers: new Gauge({
      name: 'lab_workers',
      help: 'Worker threads computing backtests and analytics (the saturation alert divides lab_jobs_pending by it)',
      registers: [registry],
      collect() {
        this.set(sources.workers());
      },
    }),
    historyRounds: new Gauge({ name: 'lab_history_rounds', help: 'Rounds in the in-memory history', registers: [registry] }),
    historyLastRound: new Gauge({ name: 'lab_history_last_round_id', help: 'Newest round id in the in-memory history', registers: [registry] }),
    historyLoadSeconds: new Gauge({ name: 'lab_history_load_seconds', help: 'Duration of the initial history load', registers: [registry] }),
    requests: new Counter({ name: 'lab_requests_total', help: 'Lab requests answered', labelNames: ['kind', 'outcome', 'cache'], registers: [registry] }),
    jobSeconds: new Histogram({
      name: 'lab_job_seconds',
      help: 'Time a computation took on a worker thread',
      labelNames: ['kind', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers: [registry],
    }),
    abandoned: new Counter({
      name: 'lab_jobs_abandoned_total',
      help: "Jobs given up because the caller's deadline passed (queued: dropped; running: worker stopped and replaced)",
      labelNames: ['kind', 'where'],
      registers: [registry],
    }),
    pendingJobs: new Gauge({
      name: 'lab_jobs_pending',
      help: 'Computations queued or running',
      registers: [registry],
      collect() {
        this.set(sources.pendingJobs());
      },
    }),
  };
}
