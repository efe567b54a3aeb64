/** The notifier's parts, built and owned by the platform in the order main.ts lists them. */
import { randomBytes, randomInt } from 'node:crypto';
import { DeliveryQueue, RuleStore } from '@gridlab/alerts-store';
import { sendCommand, serveDeclared, stopServing, type CommandHandlers } from '@gridlab/bus';
import { encodeBase58 } from '@gridlab/chain';
import { natsNames } from '@gridlab/contracts';
import { isGridlabError } from '@gridlab/errors';
import type { Platform } from '@gridlab/platform';
import { checkTarget, newSecret, resolveTarget, signDelivery, type TargetPolicy } from '@gridlab/webhooks';
import { webhookTransport } from './adapters/http/webhook-transport';
import type { NotifierMetrics } from './adapters/metrics';
import { firingPublisher } from './adapters/nats/firings';
import { followInputs } from './adapters/nats/inputs';
import { AlertCommands } from './app/alert-commands';
import { Dispatcher, type Transport } from './app/dispatcher';
import { AlertEngine } from './app/engine';
import type { ServiceConfig } from './config';

/** A Standard Webhooks message id: `msg_` and 128 random bits. */
function newWebhookId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** An alert id: `alr_` and 22 base58 characters (about 128 bits). */
function newAlertId(): string {
  let id = '';
  while (id.length < 22) id += encodeBase58(Uint8Array.from({ length: 16 }, () => randomInt(256)));
  return `alr_${id.slice(0, 22)}`;
}

/** Where the operator lets webhooks go (NOTIFIER_ALLOW_HTTP, NOTIFIER_ALLOW_PRIVATE, NOTIFIER_TARGET_PORTS). */
function targetPolicy(config: ServiceConfig): TargetPolicy {
  const ports = config.NOTIFIER_TARGET_PORTS.map(Number);
  return { allowHttp: config.NOTIFIER_ALLOW_HTTP, allowPrivate: config.NOTIFIER_ALLOW_PRIVATE, ...(ports.length > 0 ? { ports } : {}) };
}

/** The delivery side: due deliveries taken from the queue and posted, on every replica. */
export function startDispatcher(platform: Platform, config: ServiceConfig, metrics: NotifierMetrics): Dispatcher {
  const { logger, pool, nc } = platform;
  const transport = webhookTransport(targetPolicy(config));
  const publish = firingPublisher(nc, natsNames(config.NATS_PREFIX), logger);
  const dispatcher = new Dispatcher(
    new DeliveryQueue(pool),
    transport,
    {
      attempted: (_claimed, outcome, sinceFiringMs) => {
        metrics.attempts.inc({ outcome: outcome.delivered ? 'delivered' : outcome.status === null ? 'unreachable' : 'refused' });
        if (outcome.delivered) metrics.latency.observe(sinceFiringMs / 1000);
      },
      disabled: (ruleId, notice) => {
        metrics.disabled.inc();
        logger.warn('alert rule disabled: its endpoint failed every delivery for the whole window', { ruleId });
        if (notice !== null) publish([notice]);
      },
    },
    logger.child({ component: 'dispatcher' }),
    { batch: config.NOTIFIER_DELIVERY_BATCH, leaseMs: 30_000, pollMs: config.NOTIFIER_POLL_MS, now: () => new Date(), random: Math.random, timeScale: config.NOTIFIER_TIME_SCALE },
  );
  dispatcher.start();
  return platform.own('dispatcher', dispatcher, (d) => d.stop());
}

/** The rules applied to every input from NATS; what fires is stored once and handed to the dispatcher. */
export async function startEngine(platform: Platform, config: ServiceConfig, metrics: NotifierMetrics, dispatcher: Dispatcher): Promise<AlertEngine> {
  const { logger, pool, nc } = platform;
  const rules = new RuleStore(pool);
  const queue = new DeliveryQueue(pool);
  const publish = firingPublisher(nc, natsNames(config.NATS_PREFIX), logger);
  const engine = new AlertEngine(
    {
      rulesVersion: () => rules.version(),
      enabledRules: () => rules.enabled(),
      fire: async (firings) => {
        const stored = await queue.fire(firings.map((f) => ({ ruleId: f.ruleId, dedupKey: f.dedupKey, webhookId: newWebhookId(), payload: f.payload, firedAt: f.firedAt })));
        // The streams are told after the dispatcher is woken (the engine wakes it when this resolves): webhooks first.
        if (stored.length > 0) publish(stored);
        return { stored: stored.length, queued: stored.filter((f) => f.queued).length };
      },
    },
    {
      evaluated: (input, seconds) => metrics.evaluated.observe({ input }, seconds),
      fired: (input, _firings, stored) => metrics.fired.inc({ input }, stored),
      queued: () => dispatcher.wake(),
    },
    logger.child({ component: 'engine' }),
    () => new Date(),
  );
  metrics.rules.set((await engine.refresh()) ?? 0);
  platform.own('inputs', followInputs(nc, natsNames(config.NATS_PREFIX), engine, logger), (stop) => stop());
  // Rules changed by their owners (or disabled by the dispatcher) are read again; the queue's depth is measured on the same beat.
  const timer = setInterval(() => {
    void (async () => {
      try {
        const enabled = await engine.refresh();
        if (enabled !== null) metrics.rules.set(enabled);
        const depth = await queue.depth();
        metrics.queueDue.set(depth.due);
        metrics.queueOldest.set(depth.oldestMs / 1000);
        metrics.unstored.set(engine.unstoredCount());
      } catch (error) {
        logger.warn('alert rules not read; keeping the ones held', { err: error });
      }
    })();
  }, config.NOTIFIER_RULES_REFRESH_MS);
  platform.own('rules refresh', timer, (t) => clearInterval(t));
  platform.own('engine', engine, (e) => e.idle());
  return engine;
}

/** The alert rules' commands (create, read, change, delete, rotate, test, log, redeliver), on every replica. */
export function serveAlertCommands(platform: Platform, config: ServiceConfig, dispatcher: Dispatcher): void {
  const { nc, pool, logger } = platform;
  const names = natsNames(config.NATS_PREFIX);
  const policy = targetPolicy(config);
  const transport: Transport = webhookTransport(policy);
  const rules = new RuleStore(pool);
  const queue = new DeliveryQueue(pool);
  const commands = new AlertCommands(
    {
      rules,
      firings: {
        firingsOf: (id, limit) => queue.firingsOf(id, limit),
        attemptsOf: (id, limit) => queue.attemptsOf(id, limit),
        redeliver: async (id, firingId) => {
          const queued = await queue.redeliver(id, firingId);
          if (queued) dispatcher.wake();
          return queued;
        },
        logTest: (id, webhookId, payload, outcome) => queue.logTest(id, webhookId, payload, outcome),
      },
      refuseTarget: async (url) => {
        const checked = checkTarget(url, policy);
        if (!checked.ok) return checked.reason;
        const resolved = await resolveTarget(checked.url, policy);
        return resolved.ok ? null : resolved.reason;
      },
      ownsStrategy: async (subscriberId, strategyId) => {
        try {
          await sendCommand(nc, names, 'strategyGet', { subscriberId, id: strategyId }, { timeoutMs: config.NOTIFIER_COMMAND_TIMEOUT_MS });
          return true;
        } catch (error) {
          // Another owner's strategy answers as a missing one; anything else (lab-forward away) is the caller's 503.
          if (isGridlabError(error) && error.kind === 'not_found') return false;
          throw error;
        }
      },
      post: (url, body, secrets, webhookId) =>
        secrets.length === 0
          ? Promise.resolve({ status: null, delivered: false, latencyMs: 0, excerpt: '', error: 'the rule has no live signing secret' })
          : transport(url, body, { ...signDelivery(secrets, webhookId, new Date(), body), 'content-type': 'application/json' }),
      newId: newAlertId,
      newSecret,
      newWebhookId,
      now: () => new Date(),
    },
    { rulesPerKey: config.NOTIFIER_RULES_PER_KEY, addressesPerRule: config.NOTIFIER_ADDRESSES_PER_RULE },
  );
  const handlers = {
    alertCreate: (r, _c) => commands.create(r),
    alertList: (r, _c) => commands.list(r),
    alertGet: (r, _c) => commands.get(r),
    alertUpdate: (r, _c) => commands.update(r),
    alertDelete: (r, _c) => commands.delete(r),
    alertRotateSecret: (r, _c) => commands.rotateSecret(r),
    alertTest: (r, _c) => commands.test(r),
    alertDeliveries: (r, _c) => commands.deliveries(r),
    alertRedeliver: (r, _c) => commands.redeliver(r),
  } satisfies CommandHandlers<'notifier'>;
  platform.own('commands', serveDeclared(nc, names, 'notifier', handlers, logger), stopServing);
}
