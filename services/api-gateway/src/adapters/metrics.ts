import { Counter, Gauge, type Registry } from 'prom-client';

/** The gateway's own Prometheus metrics (HTTP metrics are registered by http/app.ts). */
export function gatewayMetrics(registry: Registry, sources: { readonly liveAgeSeconds: () => number | null }) {
  return {
    rateLimitFallback: new Gauge({ name: 'gateway_rate_limit_fallback', help: '1 while Redis is unreachable and limits are in-process', registers: [registry] }),
    liveSnapshotAge: new Gauge({
      name: 'gateway_live_snapshot_age_seconds',
      help: 'Seconds since the held live snapshot was built (-1 before the first one)',
      registers: [registry],
      collect() {
        this.set(sources.liveAgeSeconds() ?? -1);
      },
    }),
    keySharingSignals: new Counter({ name: 'gateway_key_sharing_signals_total', help: 'Keys seen from more client addresses than allowed', registers: [registry] }),
  };
}

/** Pages of the event log read to replay /events/stream to its clients (a client ended for reading too slowly stops its reads). */
export function eventReplayPages(registry: Registry): Counter {
  return new Counter({ name: 'gateway_event_replay_pages_total', help: 'Pages of the event log read to replay /events/stream', registers: [registry] });
}
