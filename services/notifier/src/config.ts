import { bool, int, list, loadConfig, serviceFields, type Env } from '@gridlab/config';

/** The notifier's settings; the only place it reads the environment. */
const SCHEMA = {
  ...serviceFields(9107),
  NOTIFIER_ALLOW_HTTP: bool({ default: false, doc: 'Allow http:// webhook targets (port 80, or NOTIFIER_TARGET_PORTS); tests and receivers on the operator\'s own network' }),
  NOTIFIER_ALLOW_PRIVATE: bool({ default: false, doc: 'Allow webhook targets on loopback, private, link-local and CGNAT addresses (refused by default: no request forgery into the cluster)' }),
  NOTIFIER_TARGET_PORTS: list({ default: [], doc: 'Ports a webhook target may name (default 443, and 80 with NOTIFIER_ALLOW_HTTP); the egress policy must open them too' }),
  NOTIFIER_RULES_PER_KEY: int({ default: 20, min: 1, max: 10_000, doc: 'Alert rules one subscriber (its API key) may own' }),
  NOTIFIER_ADDRESSES_PER_RULE: int({ default: 50, min: 1, max: 10_000, doc: 'Wallets one wallet rule may watch' }),
  NOTIFIER_COMMAND_TIMEOUT_MS: int({ default: 5000, min: 100, max: 60_000, doc: "How long a check of a strategy's owner waits for lab-forward" }),
  NOTIFIER_DELIVERY_BATCH: int({ default: 64, min: 1, max: 1000, doc: 'Deliveries a replica takes from the queue, and has in flight, at once' }),
  NOTIFIER_POLL_MS: int({ default: 500, min: 10, max: 60_000, doc: 'How often the queue is looked at for retries come due and other replicas\' firings (this replica\'s own are delivered at once)' }),
  NOTIFIER_RULES_REFRESH_MS: int({ default: 1000, min: 50, max: 600_000, doc: 'How often the rules are checked for changes' }),
  NOTIFIER_TIME_SCALE: int({ default: 1, min: 1, max: 1_000_000, doc: 'The retry schedule and the 24 h disabling window run this many times faster (drills and tests only)' }),
};

export type ServiceConfig = ReturnType<typeof loadServiceConfig>;

export function loadServiceConfig(env: Env) {
  return loadConfig(SCHEMA, env);
}
