import { int, oneOf, str } from './fields';

/**
 * The settings every Gridlab service shares: where PostgreSQL and NATS are, its NATS
 * namespace, where it serves /healthz, /readyz and /metrics, and how much it logs.
 * A service spreads these into its own schema and adds what is particular to it.
 */
export function serviceFields(defaultOpsPort: number) {
  return {
    DATABASE_URL: str({ default: 'postgres://postgres@127.0.0.1:5432/gridlab', secret: true, doc: 'PostgreSQL connection URL' }),
    NATS_URL: str({ default: 'nats://127.0.0.1:4222', doc: 'NATS servers, comma-separated' }),
    NATS_USER: str({ default: '', minLength: 0, doc: 'NATS user of this service (empty: no authentication); its subject permissions are in k8s/engines/nats-values.yaml' }),
    NATS_PASSWORD: str({ default: '', minLength: 0, secret: true, doc: 'Password of NATS_USER' }),
    NATS_PREFIX: str({ default: '', minLength: 0, doc: 'Subject/stream namespace (empty in production)' }),
    NATS_STREAM_REPLICAS: int({
      default: 1,
      min: 1,
      max: 5,
      doc: 'Replicas of the JetStream streams and the LIVE bucket (3 on a 3-node JetStream cluster); every service sets the same value',
    }),
    OPS_HOST: str({ default: '127.0.0.1', doc: 'Bind address of /healthz, /readyz, /metrics' }),
    OPS_PORT: int({ default: defaultOpsPort, min: 0, max: 65535 }),
    LOG_LEVEL: oneOf(['error', 'warn', 'info', 'debug'] as const, { default: 'info' }),
  };
}
