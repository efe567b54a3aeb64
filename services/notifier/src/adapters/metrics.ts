import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The notifier's Prometheus metrics. */
export function notifierMetrics(registry: Registry) {
  return {
    evaluated: new Histogram({
      name: 'notifier_evaluation_seconds',
      help: 'Time to apply the rules to one input',
      labelNames: ['input'],
      buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5],
      registers: [registry],
    }),
    fired: new Counter({ name: 'notifier_firings_total', help: 'Firings stored by this replica (not those another replica stored first)', labelNames: ['input'], registers: [registry] }),
    attempts: new Counter({ name: 'notifier_delivery_attempts_total', help: 'Delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] }),
    latency: new Histogram({
      name: 'notifier_firing_to_delivery_seconds',
      help: 'From a firing to its delivery accepted by the receiver (2xx)',
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600, 86_400],
      registers: [registry],
    }),
    disabled: new Counter({ name: 'notifier_rules_disabled_total', help: 'Rules disabled because their endpoint failed for the whole window', registers: [registry] }),
    queueDue: new Gauge({ name: 'notifier_queue_due', help: 'Deliveries due now and not yet taken', registers: [registry] }),
    queueOldest: new Gauge({ name: 'notifier_queue_oldest_due_seconds', help: 'How long the oldest due delivery has waited', registers: [registry] }),
    rules: new Gauge({ name: 'notifier_rules_enabled', help: 'Enabled rules this replica evaluates', registers: [registry] }),
    unstored: new Gauge({ name: 'notifier_firings_unstored', help: 'Firings waiting for PostgreSQL', registers: [registry] }),
  };
}

export type NotifierMetrics = ReturnType<typeof notifierMetrics>;
