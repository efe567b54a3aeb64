import { consumerMetrics, createMetrics, writerLockGauge } from './metrics';

async function value(registry: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string>): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  return metric?.values.find((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l))?.value;
}

describe('shared metrics', () => {
  it('count consumer deliveries by durable, outcome and redelivery, registered once per registry', async () => {
    const registry = createMetrics('test');
    const a = consumerMetrics(registry)('svc_a');
    const b = consumerMetrics(registry)('svc_b');
    a('ack', false);
    a('nak', false);
    a('ack', true);
    b('term', true);
    expect(await value(registry, 'nats_consumer_deliveries_total', { durable: 'svc_a', outcome: 'ack', redelivered: 'true' })).toBe(1);
    expect(await value(registry, 'nats_consumer_deliveries_total', { durable: 'svc_a', outcome: 'nak', redelivered: 'false' })).toBe(1);
    expect(await value(registry, 'nats_consumer_deliveries_total', { durable: 'svc_b', outcome: 'term', redelivered: 'true' })).toBe(1);
  });

  it('the writer lock gauge is one metric whoever asks for it', async () => {
    const registry = createMetrics('test');
    writerLockGauge(registry).labels({ lock: 'x' }).set(1);
    writerLockGauge(registry).labels({ lock: 'y' }).set(0);
    expect(await value(registry, 'writer_lock_held', { lock: 'x' })).toBe(1);
    expect(await value(registry, 'writer_lock_held', { lock: 'y' })).toBe(0);
  });
});
