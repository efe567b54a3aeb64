import { Gauge, type Registry } from 'prom-client';

/** Billing's Prometheus metrics. */
export function billingMetrics(registry: Registry) {
  return {
    factsUnpublished: new Gauge({
      name: 'billing_facts_unpublished',
      help: 'Outbox facts still unpublished after the last relay pass (of at most 500 read per pass)',
      registers: [registry],
    }),
  };
}
