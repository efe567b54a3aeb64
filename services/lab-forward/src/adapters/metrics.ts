import { Gauge, Histogram, type Registry } from 'prom-client';

const SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5];

/** The forward writer's Prometheus metrics. */
export function forwardMetrics(registry: Registry) {
  return {
    settleSeconds: new Histogram({
      name: 'lab_forward_settle_seconds',
      help: 'Time to settle one round for every active strategy (one transaction)',
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    recordSeconds: new Histogram({
      name: 'lab_forward_record_seconds',
      help: 'Time to record the predictions of a newly opened round',
      buckets: SECONDS_BUCKETS,
      registers: [registry],
    }),
    watermark: new Gauge({ name: 'lab_forward_round_watermark', help: 'Last round settled', registers: [registry] }),
    sessions: new Gauge({ name: 'lab_forward_sessions', help: 'Active strategies settled in the last round', registers: [registry] }),
  };
}
