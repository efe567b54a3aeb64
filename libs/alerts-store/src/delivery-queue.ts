import { withTransaction, type Pool } from '@gridlab/db';
import { STORED_FIRING_COLUMNS, toStoredFiring, type FiringRow, type StoredFiring } from './firing-log';

/** A rule's condition that held: what the notifier stores once, whichever replica saw it first. */
export interface NewFiring {
  readonly ruleId: string;
  /** The condition and the round it held in: the same key from two replicas is one firing. */
  readonly dedupKey: string;
  /** What every attempt of its delivery carries as `webhook-id` (`msg_` and a random part). */
  readonly webhookId: string;
  readonly payload: unknown;
  readonly firedAt: Date;
}

/** A firing stored now (not one another replica stored first). */
export interface Fired extends StoredFiring {
  /** Queued for delivery: the rule has a target and is enabled. */
  readonly queued: boolean;
}

export type TargetFormat = 'standard' | 'discord' | 'slack';

/** A delivery taken from the queue: this replica holds it until its lease ends. */
export interface Claimed {
  readonly firingId: number;
  readonly ruleId: string;
  /** The rule's name, which heads a Discord or Slack message; null: none given. */
  readonly ruleName: string | null;
  readonly webhookId: string;
  readonly payload: unknown;
  readonly firedAt: Date;
  /** This attempt's number, from 1. */
  readonly attempt: number;
  readonly url: string;
  readonly format: TargetFormat;
  /** The secrets that sign it, newest first (two while a rotation's overlap lasts). */
  readonly secrets: readonly string[];
}

/** How an attempt went, as the delivery log keeps it. */
export interface AttemptOutcome {
  readonly status: number | null;
  readonly delivered: boolean;
  readonly latencyMs: number;
  readonly excerpt: string;
  readonly error: string | null;
}

/** What recording an attempt changed. */
export interface Recorded {
  /** The rule was disabled now: its endpoint has failed for `disableAfterMs`. */
  readonly disabled: boolean;
  /** The firing will not be tried again (delivered, expired, or its rule disabled). */
  readonly final: boolean;
  /** The `alert.disabled` notice stored among the rule's firings when it was disabled now. */
  readonly notice: StoredFiring | null;
}

/** One line of a rule's delivery log. */
export interface LoggedAttempt {
  readonly firingId: number;
  readonly webhookId: string;
  readonly attempt: number;
  readonly at: Date;
  readonly status: number | null;
  readonly latencyMs: number;
  readonly excerpt: string;
  readonly error: string | null;
}

/** A firing as its delivery stands. */
export interface FiringState {
  readonly id: number;
  readonly webhookId: string;
  readonly payload: unknown;
  readonly firedAt: Date;
  /** null: the rule had no target (stream only). */
  readonly state: 'pending' | 'delivered' | 'expired' | null;
  readonly attempts: number;
}

/**
 * The notifier's firings and their delivery queue in PostgreSQL: firings stored once by
 * their dedup key (replicas evaluate the same messages), due deliveries taken with
 * `FOR UPDATE SKIP LOCKED` under a lease, every attempt logged. Times that decide who
 * delivers (due, lease) are the database's, so replicas' clocks need not agree.
 */
export class DeliveryQueue {
  constructor(private readonly pool: Pool) {}

  /** Stores firings (a key already stored is left as it was) and queues those of enabled rules with a target. */
  async fire(firings: readonly NewFiring[]): Promise<Fired[]> {
    if (firings.length === 0) return [];
    const { rows } = await this.pool.query<{ id: string; rule_id: string; owner: string; webhook_id: string; queued: boolean }>(
      `WITH input AS (
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::timestamptz[]) AS u(rule_id, dedup_key, webhook_id, payload, fired_at)
       ), stored AS (
         INSERT INTO alerts.firings (rule_id, owner, dedup_key, webhook_id, payload, fired_at)
         SELECT i.rule_id, r.owner, i.dedup_key, i.webhook_id, i.payload, i.fired_at FROM input i JOIN alerts.rules r ON r.id = i.rule_id
         ON CONFLICT (dedup_key) DO NOTHING
         RETURNING id, rule_id, owner, webhook_id
       ), queued AS (
         INSERT INTO alerts.deliveries (firing_id, rule_id, next_at)
         SELECT s.id, s.rule_id, now() FROM stored s JOIN alerts.rules r ON r.id = s.rule_id WHERE r.enabled AND r.target_url IS NOT NULL
         RETURNING firing_id
       )
       SELECT s.id, s.rule_id, s.owner, s.webhook_id, EXISTS (SELECT 1 FROM queued q WHERE q.firing_id = s.id) AS queued FROM stored s ORDER BY s.id`,
      [
        firings.map((f) => f.ruleId),
        firings.map((f) => f.dedupKey),
        firings.map((f) => f.webhookId),
        firings.map((f) => JSON.stringify(f.payload)),
        firings.map((f) => f.firedAt),
      ],
    );
    // What was stored is what was given: the payloads are not sent back (a round can fire a thousand rules).
    const given = new Map(firings.map((f) => [f.webhookId, f]));
    return rows.map((r) => {
      const f = given.get(r.webhook_id)!;
      return { id: Number(r.id), ruleId: r.rule_id, owner: r.owner, webhookId: r.webhook_id, payload: f.payload, firedAt: f.firedAt, queued: r.queued };
    });
  }

  /**
   * Takes up to `limit` due deliveries, oldest due first, and holds them for `leaseMs`:
   * no other replica takes them meanwhile. The lease covers one attempt (5 s at most) with
   * room to record it.
   */
  async claim(limit: number, leaseMs: number): Promise<Claimed[]> {
    const { rows } = await this.pool.query<{
      firing_id: string;
      rule_id: string;
      rule_name: string | null;
      webhook_id: string;
      payload: unknown;
      fired_at: Date;
      attempts: number;
      target_url: string;
      target_format: TargetFormat;
      secrets: string[] | null;
    }>(
      `WITH due AS (
         SELECT d.firing_id FROM alerts.deliveries d
         WHERE d.state = 'pending' AND d.next_at <= now() AND (d.leased_until IS NULL OR d.leased_until <= now())
           AND EXISTS (SELECT 1 FROM alerts.rules r WHERE r.id = d.rule_id AND r.enabled)
         ORDER BY d.next_at LIMIT $1 FOR UPDATE SKIP LOCKED
       ), taken AS (
         UPDATE alerts.deliveries d SET attempts = d.attempts + 1, leased_until = now() + make_interval(secs => $2::float8 / 1000)
         FROM due WHERE d.firing_id = due.firing_id
         RETURNING d.firing_id, d.rule_id, d.attempts
       )
       SELECT t.firing_id, t.rule_id, r.name AS rule_name, f.webhook_id, f.payload, f.fired_at, t.attempts, r.target_url, r.target_format,
              (SELECT array_agg(s.secret ORDER BY s.created_at DESC) FROM alerts.rule_secrets s
                WHERE s.rule_id = t.rule_id AND (s.retires_at IS NULL OR s.retires_at > now())) AS secrets
       FROM taken t JOIN alerts.firings f ON f.id = t.firing_id JOIN alerts.rules r ON r.id = t.rule_id
       ORDER BY t.firing_id`,
      [limit, leaseMs],
    );
    return rows.map((r) => ({
      firingId: Number(r.firing_id),
      ruleId: r.rule_id,
      ruleName: r.rule_name,
      webhookId: r.webhook_id,
      payload: r.payload,
      firedAt: r.fired_at,
      attempt: r.attempts,
      url: r.target_url,
      format: r.target_format,
      secrets: r.secrets ?? [],
    }));
  }

  /**
   * Logs an attempt and decides what follows it: delivered (the endpoint is healthy
   * again); or tried again in `retryInMs` (null: the schedule has ended and the firing
   * expires). A failure when the endpoint has been failing for `disableAfterMs` disables
   * the rule and ends its pending deliveries. An attempt whose lease another replica has
   * since taken over is logged only.
   */
  async record(claimed: Pick<Claimed, 'firingId' | 'attempt'>, outcome: AttemptOutcome, retryInMs: number | null, disableAfterMs: number): Promise<Recorded> {
    if (outcome.delivered) return this.recordDelivered(claimed, outcome);
    return withTransaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO alerts.attempts (firing_id, attempt, status, latency_ms, excerpt, error) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (firing_id, attempt) DO NOTHING`,
        [claimed.firingId, claimed.attempt, outcome.status, Math.round(outcome.latencyMs), outcome.excerpt, outcome.error],
      );
      const { rows } = await client.query<{ rule_id: string }>(
        `SELECT rule_id FROM alerts.deliveries WHERE firing_id = $1 AND attempts = $2 AND state = 'pending' FOR UPDATE`,
        [claimed.firingId, claimed.attempt],
      );
      const ruleId = rows[0]?.rule_id;
      if (ruleId === undefined) return { disabled: false, final: true, notice: null };
      const { rows: rule } = await client.query<{ failing_for_ms: number }>(
        `UPDATE alerts.rules SET failing_since = coalesce(failing_since, now()) WHERE id = $1
         RETURNING extract(epoch FROM now() - failing_since)::float8 * 1000 AS failing_for_ms`,
        [ruleId],
      );
      if ((rule[0]?.failing_for_ms ?? 0) >= disableAfterMs) {
        const { rows: disabled } = await client.query<{ failing_since: Date }>(
          `UPDATE alerts.rules SET enabled = false, disabled_reason = 'endpoint_failing', updated_at = now() WHERE id = $1 AND enabled RETURNING failing_since`,
          [ruleId],
        );
        // The rule's other pending deliveries end too; those another attempt holds right now are
        // skipped, not waited for (it may be waiting for this rule's row: a deadlock), and are
        // never taken again while the rule is disabled.
        await client.query(
          `UPDATE alerts.deliveries SET state = 'expired', leased_until = NULL
           WHERE firing_id IN (SELECT firing_id FROM alerts.deliveries WHERE rule_id = $1 AND state = 'pending' FOR UPDATE SKIP LOCKED)`,
          [ruleId],
        );
        // Its owner is told where it looks: the rule's firings (the delivery log, the alert
        // stream) gain the notice; there is nothing to post it to.
        if (disabled[0] === undefined) return { disabled: false, final: true, notice: null };
        const { rows: notice } = await client.query<FiringRow>(
          `INSERT INTO alerts.firings (rule_id, owner, dedup_key, webhook_id, payload, fired_at)
           SELECT id, owner, id || ':disabled:' || extract(epoch FROM $2::timestamptz)::text, 'msg_' || replace(gen_random_uuid()::text, '-', ''),
                  jsonb_build_object('type', 'alert.disabled', 'ruleId', id, 'roundId', NULL, 'reason', 'endpoint_failing', 'failingSince', $2::timestamptz), now()
           FROM alerts.rules WHERE id = $1 ON CONFLICT (dedup_key) DO NOTHING
           RETURNING ${STORED_FIRING_COLUMNS}`,
          [ruleId, disabled[0].failing_since],
        );
        return { disabled: true, final: true, notice: notice[0] === undefined ? null : toStoredFiring(notice[0]) };
      }
      if (retryInMs === null) {
        await client.query(`UPDATE alerts.deliveries SET state = 'expired', leased_until = NULL WHERE firing_id = $1`, [claimed.firingId]);
        return { disabled: false, final: true, notice: null };
      }
      await client.query(
        `UPDATE alerts.deliveries SET next_at = now() + make_interval(secs => $2::float8 / 1000), leased_until = NULL WHERE firing_id = $1`,
        [claimed.firingId, retryInMs],
      );
      return { disabled: false, final: false, notice: null };
    });
  }

  /**
   * A delivered attempt, in one statement (the common case, on the path of every webhook):
   * logged, its delivery closed unless another replica's lease took it over, and its rule's
   * failing streak cleared.
   */
  private async recordDelivered(claimed: Pick<Claimed, 'firingId' | 'attempt'>, outcome: AttemptOutcome): Promise<Recorded> {
    await this.pool.query(
      `WITH logged AS (
         INSERT INTO alerts.attempts (firing_id, attempt, status, latency_ms, excerpt, error) VALUES ($1, $2, $3, $4, $5, NULL)
         ON CONFLICT (firing_id, attempt) DO NOTHING
       ), closed AS (
         UPDATE alerts.deliveries SET state = 'delivered', delivered_at = now(), leased_until = NULL
         WHERE firing_id = $1 AND attempts = $2 AND state = 'pending' RETURNING rule_id
       )
       UPDATE alerts.rules SET failing_since = NULL WHERE id IN (SELECT rule_id FROM closed) AND failing_since IS NOT NULL`,
      [claimed.firingId, claimed.attempt, outcome.status, Math.round(outcome.latencyMs), outcome.excerpt],
    );
    return { disabled: false, final: true, notice: null };
  }

  /**
   * Queues a firing of `ruleId` again, now, under its webhook id (the receiver lost it, or
   * its owner wants it again); false when the rule has no such firing or no target.
   */
  async redeliver(ruleId: string, firingId: number): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO alerts.deliveries (firing_id, rule_id, next_at)
       SELECT f.id, f.rule_id, now() FROM alerts.firings f JOIN alerts.rules r ON r.id = f.rule_id
       WHERE f.id = $2 AND f.rule_id = $1 AND r.target_url IS NOT NULL
       ON CONFLICT (firing_id) DO UPDATE SET state = 'pending', next_at = now(), leased_until = NULL, delivered_at = NULL`,
      [ruleId, firingId],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Logs a delivery made outside the queue (its owner's test ping) as a firing of the rule
   * with its one attempt, so the delivery log shows it; never retried.
   */
  async logTest(ruleId: string, webhookId: string, payload: unknown, outcome: AttemptOutcome): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      const { rows } = await client.query<{ id: string }>(
        `INSERT INTO alerts.firings (rule_id, owner, dedup_key, webhook_id, payload, fired_at)
         SELECT id, owner, $2, $3, $4, now() FROM alerts.rules WHERE id = $1 RETURNING id`,
        [ruleId, `${ruleId}:test:${webhookId}`, webhookId, JSON.stringify(payload)],
      );
      const firingId = rows[0]?.id;
      if (firingId === undefined) return;
      await client.query(
        `INSERT INTO alerts.deliveries (firing_id, rule_id, state, attempts, next_at, delivered_at)
         VALUES ($1, $2, $3, 1, now(), CASE WHEN $3 = 'delivered' THEN now() END)`,
        [firingId, ruleId, outcome.delivered ? 'delivered' : 'expired'],
      );
      await client.query('INSERT INTO alerts.attempts (firing_id, attempt, status, latency_ms, excerpt, error) VALUES ($1, 1, $2, $3, $4, $5)', [
        firingId,
        outcome.status,
        Math.round(outcome.latencyMs),
        outcome.excerpt,
        outcome.error,
      ]);
    });
  }

  /** Deliveries due now (waiting for a replica), and the age of the oldest, for the metrics. */
  async depth(): Promise<{ readonly due: number; readonly oldestMs: number }> {
    const { rows } = await this.pool.query<{ due: number; oldest_ms: number | null }>(
      `SELECT count(*)::int AS due, (extract(epoch FROM now() - min(next_at)) * 1000)::float8 AS oldest_ms
       FROM alerts.deliveries WHERE state = 'pending' AND next_at <= now()`,
    );
    return { due: rows[0]!.due, oldestMs: Math.max(0, rows[0]!.oldest_ms ?? 0) };
  }

  /** A rule's delivery log, newest attempt first. */
  async attemptsOf(ruleId: string, limit: number): Promise<LoggedAttempt[]> {
    const { rows } = await this.pool.query<{ firing_id: string; webhook_id: string; attempt: number; at: Date; status: number | null; latency_ms: number; excerpt: string; error: string | null }>(
      `SELECT a.firing_id, f.webhook_id, a.attempt, a.at, a.status, a.latency_ms, a.excerpt, a.error
       FROM alerts.firings f JOIN alerts.attempts a ON a.firing_id = f.id
       WHERE f.rule_id = $1 ORDER BY a.at DESC, a.firing_id DESC, a.attempt DESC LIMIT $2`,
      [ruleId, limit],
    );
    return rows.map((r) => ({ firingId: Number(r.firing_id), webhookId: r.webhook_id, attempt: r.attempt, at: r.at, status: r.status, latencyMs: r.latency_ms, excerpt: r.excerpt, error: r.error }));
  }

  /** A rule's firings, newest first, with where each delivery stands. */
  async firingsOf(ruleId: string, limit: number): Promise<FiringState[]> {
    const { rows } = await this.pool.query<{ id: string; webhook_id: string; payload: unknown; fired_at: Date; state: FiringState['state']; attempts: number | null }>(
      `SELECT f.id, f.webhook_id, f.payload, f.fired_at, d.state, d.attempts FROM alerts.firings f
       LEFT JOIN alerts.deliveries d ON d.firing_id = f.id WHERE f.rule_id = $1 ORDER BY f.id DESC LIMIT $2`,
      [ruleId, limit],
    );
    return rows.map((r) => ({ id: Number(r.id), webhookId: r.webhook_id, payload: r.payload, firedAt: r.fired_at, state: r.state, attempts: r.attempts ?? 0 }));
  }
}
