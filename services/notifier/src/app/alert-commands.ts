import type { AttemptOutcome, FiringState, LoggedAttempt, NewRule, RuleChange, StoredRule } from '@gridlab/alerts-store';
import type {
  Alert,
  AlertCreateRequest,
  AlertCreatedReply,
  AlertDeleteReply,
  AlertDeliveriesReply,
  AlertFiring,
  AlertIdRequest,
  AlertListReply,
  AlertRedeliverReply,
  AlertRedeliverRequest,
  AlertReply,
  AlertSecretReply,
  AlertTestReply,
  AlertUpdateRequest,
} from '@gridlab/contracts';
import { ConflictError, InputError, NotFoundError, type FieldError } from '@gridlab/errors';
import { parseRuleInput, parseRulePatch, ruleCountProblem, type Rule, type RuleInput, type RuleLimits } from '../domain/rules';
import { toRule } from './engine';

/** The rules and their secrets as the commands use them (PostgreSQL in production). */
interface RulesPort {
  create(rule: NewRule, secret: string, maxPerOwner: number): Promise<StoredRule | null>;
  list(owner: string): Promise<StoredRule[]>;
  get(owner: string, id: string): Promise<StoredRule | null>;
  update(owner: string, id: string, change: RuleChange): Promise<StoredRule | null>;
  delete(owner: string, id: string): Promise<boolean>;
  rotateSecret(owner: string, id: string, secret: string, overlapMs: number): Promise<boolean>;
  /** The secrets signing the rule's deliveries now, newest first. */
  liveSecrets(id: string): Promise<string[]>;
}

/** The firings and their log as the commands read them. */
interface FiringsPort {
  firingsOf(ruleId: string, limit: number): Promise<FiringState[]>;
  attemptsOf(ruleId: string, limit: number): Promise<LoggedAttempt[]>;
  redeliver(ruleId: string, firingId: number): Promise<boolean>;
  /** Logs a delivery made outside the queue (a test ping). */
  logTest(ruleId: string, webhookId: string, payload: unknown, outcome: AttemptOutcome): Promise<void>;
}

export interface AlertCommandPorts {
  readonly rules: RulesPort;
  readonly firings: FiringsPort;
  /** Why a target URL cannot be called (form, address, port, resolution), or null when it can. */
  readonly refuseTarget: (url: string) => Promise<string | null>;
  /** Whether `strategyId` is one of the subscriber's strategies. */
  readonly ownsStrategy: (subscriberId: string, strategyId: string) => Promise<boolean>;
  /** Signs and posts one body (the dispatcher's transport). */
  readonly post: (url: string, body: string, secrets: readonly string[], webhookId: string) => Promise<AttemptOutcome>;
  readonly newId: () => string;
  readonly newSecret: () => string;
  readonly newWebhookId: () => string;
  readonly now: () => Date;
}

/** Firings and attempts a delivery log shows. */
const LOG_FIRINGS = 100;
const LOG_ATTEMPTS = 1000;
/** How long a rotated secret keeps signing beside the new one. */
const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

const notFound = (id: string): NotFoundError => new NotFoundError('alert_not_found', `alert rule ${id} does not exist`);
const invalid = (problems: readonly FieldError[]): InputError =>
  new InputError(`invalid alert rule: ${problems.map((p) => `${p.path || '/'} ${p.message}`).join('; ')}`, { errors: problems });

/** The kind's own fields: what the store keeps as `params` (a stored rule's id and time are columns). */
function paramsOf(rule: RuleInput | Rule): Record<string, unknown> {
  const { kind: _kind, name: _name, target: _target, enabled: _enabled, id: _id, createdAt: _createdAt, ...params } = rule as Partial<Rule> & Record<string, unknown>;
  return params;
}

/** A stored rule as its owner reads it. */
function toAlert(stored: StoredRule): Alert {
  const params = typeof stored.params === 'object' && stored.params !== null ? (stored.params as Record<string, unknown>) : {};
  return {
    ...params,
    id: stored.id,
    kind: stored.kind as Alert['kind'],
    name: stored.name,
    target: stored.target,
    enabled: stored.enabled,
    disabledReason: stored.disabledReason === 'endpoint_failing' ? 'endpoint_failing' : null,
    failingSince: stored.failingSince?.toISOString() ?? null,
    createdAt: stored.createdAt.toISOString(),
    updatedAt: stored.updatedAt.toISOString(),
  };
}

/**
 * Alert rules owned by subscribers: created, read, changed and deleted by their owner (a
 * rule of another's answers as not existing), their secrets rotated, a test ping sent,
 * their delivery log read and a firing queued again. Every rule is checked whole, each
 * problem named by its JSON path; a target is checked for what it resolves to now, and
 * again at every delivery.
 */
export class AlertCommands {
  constructor(
    private readonly ports: AlertCommandPorts,
    private readonly limits: RuleLimits,
  ) {}

  async create({ subscriberId, body }: AlertCreateRequest): Promise<AlertCreatedReply> {
    const parsed = parseRuleInput(body, this.limits);
    if (!parsed.ok) throw invalid(parsed.problems);
    await this.checkReach(subscriberId, parsed.rule);
    const id = this.ports.newId();
    const secret = this.ports.newSecret();
    const rule = parsed.rule;
    const stored = await this.ports.rules.create(
      { id, owner: subscriberId, kind: rule.kind, name: rule.name, params: paramsOf(rule), target: rule.target, enabled: rule.enabled },
      secret,
      this.limits.rulesPerKey,
    );
    if (stored === null) throw new ConflictError('alert_limit_reached', ruleCountProblem(this.limits.rulesPerKey, this.limits)!.message);
    return { alert: toAlert(stored), secret: rule.target === null ? null : secret };
  }

  async list({ subscriberId }: { readonly subscriberId: string }): Promise<AlertListReply> {
    const alerts = (await this.ports.rules.list(subscriberId)).map(toAlert);
    return { count: alerts.length, alerts };
  }

  async get({ subscriberId, id }: AlertIdRequest): Promise<AlertReply> {
    return { alert: toAlert(await this.owned(subscriberId, id)) };
  }

  async update({ subscriberId, id, body }: AlertUpdateRequest): Promise<AlertReply> {
    const stored = await this.owned(subscriberId, id);
    const existing = toRule(stored);
    if (existing === null) throw new ConflictError('alert_unreadable', `alert rule ${id} no longer reads as a rule; delete it and create it again`);
    const parsed = parseRulePatch(existing, body, this.limits);
    if (!parsed.ok) throw invalid(parsed.problems);
    const rule: Rule = parsed.rule;
    if (rule.target?.url !== existing.target?.url || (rule.kind === 'strategy_signal' && existing.kind === 'strategy_signal' && rule.strategyId !== existing.strategyId)) {
      await this.checkReach(subscriberId, rule);
    }
    const changed = await this.ports.rules.update(subscriberId, id, { name: rule.name, params: paramsOf(rule), target: rule.target, enabled: rule.enabled });
    if (changed === null) throw notFound(id);
    return { alert: toAlert(changed) };
  }

  async delete({ subscriberId, id }: AlertIdRequest): Promise<AlertDeleteReply> {
    if (!(await this.ports.rules.delete(subscriberId, id))) throw notFound(id);
    return { ok: true };
  }

  async rotateSecret({ subscriberId, id }: AlertIdRequest): Promise<AlertSecretReply> {
    const secret = this.ports.newSecret();
    if (!(await this.ports.rules.rotateSecret(subscriberId, id, secret, SECRET_OVERLAP_MS))) throw notFound(id);
    return { secret, previousRetiresAt: new Date(this.ports.now().getTime() + SECRET_OVERLAP_MS).toISOString() };
  }

  async test({ subscriberId, id }: AlertIdRequest): Promise<AlertTestReply> {
    const stored = await this.owned(subscriberId, id);
    if (stored.target === null) throw new ConflictError('alert_has_no_target', `alert rule ${id} has no target to test`);
    const at = this.ports.now();
    const webhookId = this.ports.newWebhookId();
    const payload = { type: 'alert.test', ruleId: id, roundId: null, sentAt: at.toISOString() };
    const body = stored.target.format === 'standard' ? JSON.stringify(payload) : renderTest(stored.target.format, stored.name);
    const outcome = await this.ports.post(stored.target.url, body, await this.ports.rules.liveSecrets(id), webhookId);
    await this.ports.firings.logTest(id, webhookId, payload, outcome);
    return { webhookId, attempt: 1, at: at.toISOString(), ...outcome, latencyMs: Math.round(outcome.latencyMs) };
  }

  async deliveries({ subscriberId, id }: AlertIdRequest): Promise<AlertDeliveriesReply> {
    await this.owned(subscriberId, id);
    const [firings, attempts] = await Promise.all([this.ports.firings.firingsOf(id, LOG_FIRINGS), this.ports.firings.attemptsOf(id, LOG_ATTEMPTS)]);
    const byFiring = new Map<number, LoggedAttempt[]>();
    for (const a of attempts) {
      const list = byFiring.get(a.firingId);
      if (list === undefined) byFiring.set(a.firingId, [a]);
      else list.push(a);
    }
    const out: AlertFiring[] = firings.map((f) => ({
      id: f.id,
      webhookId: f.webhookId,
      firedAt: f.firedAt.toISOString(),
      state: f.state,
      attempts: (byFiring.get(f.id) ?? []).map((a) => ({ attempt: a.attempt, at: a.at.toISOString(), status: a.status, latencyMs: a.latencyMs, excerpt: a.excerpt, error: a.error })),
      payload: f.payload as AlertFiring['payload'],
    }));
    return { count: out.length, firings: out };
  }

  async redeliver({ subscriberId, id, firingId }: AlertRedeliverRequest): Promise<AlertRedeliverReply> {
    const stored = await this.owned(subscriberId, id);
    if (stored.target === null) throw new ConflictError('alert_has_no_target', `alert rule ${id} has no target to deliver to`);
    const firing = (await this.ports.firings.firingsOf(id, LOG_FIRINGS)).find((f) => f.id === firingId);
    if (firing === undefined || !(await this.ports.firings.redeliver(id, firingId))) throw new NotFoundError('firing_not_found', `alert rule ${id} has no firing ${firingId}`);
    return { queued: true, webhookId: firing.webhookId };
  }

  private async owned(subscriberId: string, id: string): Promise<StoredRule> {
    const stored = await this.ports.rules.get(subscriberId, id);
    if (stored === null) throw notFound(id);
    return stored;
  }

  /** The target resolves to an address deliveries may reach, and a signalled strategy is the caller's. */
  private async checkReach(subscriberId: string, rule: RuleInput): Promise<void> {
    const problems: FieldError[] = [];
    if (rule.target !== null) {
      const refused = await this.ports.refuseTarget(rule.target.url);
      if (refused !== null) problems.push({ path: '/target/url', message: refused });
    }
    if (rule.kind === 'strategy_signal' && !(await this.ports.ownsStrategy(subscriberId, rule.strategyId))) {
      problems.push({ path: '/strategyId', message: 'is not one of your strategies' });
    }
    if (problems.length > 0) throw invalid(problems);
  }
}

/** A test ping as Discord or Slack show it. */
function renderTest(format: 'discord' | 'slack', ruleName: string | null): string {
  const named = ruleName === null ? '' : ` for "${ruleName}"`;
  const text = `Gridlab test delivery${named}: this endpoint receives the rule's alerts.`;
  // Discord: no mention pings anyone; Slack: its markup characters escaped, as the alerts' own messages.
  if (format === 'discord') return JSON.stringify({ content: text.slice(0, 2000), allowed_mentions: { parse: [] } });
  return JSON.stringify({ text: text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').slice(0, 3000) });
}
