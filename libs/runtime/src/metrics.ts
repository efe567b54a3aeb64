import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export type Metrics = Registry;

/** A registry with the default process metrics, labelled with the service name. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

function shared<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/**
 * Deliveries of the service's durable JetStream consumers, by durable, outcome (ack, nak,
 * term) and whether the delivery was a redelivery: `onDelivery` for consumeDurable.
 */
export function consumerMetrics(registry: Registry): (durable: string) => (outcome: 'ack' | 'nak' | 'term', redelivered: boolean) => void {
  const deliveries = shared(
    registry,
    'nats_consumer_deliveries_total',
    () => new Counter({ name: 'nats_consumer_deliveries_total', help: 'Deliveries of durable consumers by outcome', labelNames: ['durable', 'outcome', 'redelivered'], registers: [registry] }),
  );
  return (durable) => (outcome, redelivered) => deliveries.inc({ durable, outcome, redelivered: String(redelivered) });
}

/** 1 while this process holds the single-writer lock `lock`, 0 while it stands by. */
export function writerLockGauge(registry: Registry): Gauge<'lock'> {
  return shared(registry, 'writer_lock_held', () => new Gauge({ name: 'writer_lock_held', help: '1 while this process holds the single-writer lock', labelNames: ['lock'], registers: [registry] }));
}
