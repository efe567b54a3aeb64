import { Counter, Gauge, type Registry } from 'prom-client';

/** The event log's Prometheus metrics. */
export function eventLogMetrics(registry: Registry) {
  return {
    appended: new Counter({ name: 'event_log_appended_total', help: 'Events appended', labelNames: ['kind'], registers: [registry] }),
    watermark: new Gauge({ name: 'event_log_round_watermark', help: 'Last round id derived', registers: [registry] }),
  };
}
