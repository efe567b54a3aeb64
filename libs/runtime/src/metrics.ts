import { Registry, collectDefaultMetrics } from 'prom-client';

export type Metrics = Registry;

/** A registry with the default process metrics, labelled with the service name. */
export function createMetrics(service: string): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
