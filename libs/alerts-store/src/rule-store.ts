import { withTransaction, type Pool } from '@gridlab/db';
import type { TargetFormat } from './delivery-queue';

export interface RuleTarget {
  readonly url: string;
  readonly format: TargetFormat;
}

/** A rule as stored: its kind's settings (`params`) are the notifier's to check and read. */
export interface StoredRule {
  readonly id: string;
  readonly owner: string;
  readonly kind: string;
  readonly name: string | null;
  readonly params: unknown;
  readonly target: RuleTarget | null;
  readonly enabled: boolean;
  /** Why the notifier disabled it (`endpoint_failing`); null when its owner did, or it is enabled. */
  readonly disabledReason: string | null;
  readonly failingSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type NewRule = Pick<StoredRule, 'id' | 'owner' | 'kind' | 'name' | 'params' | 'target' | 'enabled'>;

/** What an owner may change of a rule (its kind never changes: a new rule is a new id). */
export type RuleChange = Partial<Pick<StoredRule, 'name' | 'params' | 'target' | 'enabled'>>;

interface RuleRow {
  id: string;
  owner: string;
  kind: string;
  name: string | null;
  params: unknown;
  target_url: string | null;
  target_format: TargetFormat | null;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, owner, kind, name, params, target_url, target_format, enabled, disabled_reason, failing_since, created_at, updated_at';

function toRule(r: RuleRow): StoredRule {
  return {
    id: r.id,
    owner: r.owner,
    kind: r.kind,
    name: r.name,
    params: r.params,
    target: r.target_url === null || r.target_format === null ? null : { url: r.target_url, format: r.target_format },
    enabled: r.enabled,
    disabledReason: r.disabled_reason,
    failingSince: r.failing_since,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The alert rules and their signing secrets. Every read and change of an owner's rule names the owner: another's rule is not found. */
export class RuleStore {
  constructor(private readonly pool: Pool) {}

  /**
   * Stores a rule with its first secret unless its owner already holds `maxPerOwner`
   * (null then). Two creations of one owner at once are taken one after the other, so
   * the limit holds.
   */
  async create(rule: NewRule, secret: string, maxPerOwner: number): Promise<StoredRule | null> {
    return withTransaction(this.pool, async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('gridlab-alert-owner:' || $1))", [rule.owner]);
      const { rows: count } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM alerts.rules WHERE owner = $1', [rule.owner]);
      if (count[0]!.n >= maxPerOwner) return null;
      const { rows } = await client.query<RuleRow>(
        `INSERT INTO alerts.rules (id, owner, kind, name, params, target_url, target_format, enabled)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
        [rule.id, rule.owner, rule.kind, rule.name, JSON.stringify(rule.params), rule.target?.url ?? null, rule.target?.format ?? null, rule.enabled],
      );
      await client.query('INSERT INTO alerts.rule_secrets (rule_id, secret) VALUES ($1, $2)', [rule.id, secret]);
      return toRule(rows[0]!);
    });
  }

  /** An owner's rules, oldest first. */
  async list(owner: string): Promise<StoredRule[]> {
    const { rows } = await this.pool.query<RuleRow>(`SELECT ${COLUMNS} FROM alerts.rules WHERE owner = $1 ORDER BY created_at, id`, [owner]);
    return rows.map(toRule);
  }

  async get(owner: string, id: string): Promise<StoredRule | null> {
    const { rows } = await this.pool.query<RuleRow>(`SELECT ${COLUMNS} FROM alerts.rules WHERE owner = $1 AND id = $2`, [owner, id]);
    return rows[0] === undefined ? null : toRule(rows[0]);
  }

  /** Every enabled rule (what the evaluators hold), and the newest change among all rules (to tell when to read again). */
  async enabled(): Promise<StoredRule[]> {
    const { rows } = await this.pool.query<RuleRow>(`SELECT ${COLUMNS} FROM alerts.rules WHERE enabled ORDER BY id`);
    return rows.map(toRule);
  }

  /** A mark that changes whenever a rule is created, changed or deleted. */
  async version(): Promise<string> {
    const { rows } = await this.pool.query<{ v: string }>("SELECT count(*)::text || ':' || coalesce(max(updated_at)::text, '') AS v FROM alerts.rules");
    return rows[0]!.v;
  }

  /**
   * Changes an owner's rule; enabling it again clears why it was disabled and its failing
   * streak (the owner says the endpoint is back). Null when the owner has no such rule.
   */
  async update(owner: string, id: string, change: RuleChange): Promise<StoredRule | null> {
    const sets: string[] = [];
    const values: unknown[] = [owner, id];
    const set = (column: string, value: unknown): void => {
      values.push(value);
      sets.push(`${column} = $${values.length}`);
    };
    if (change.name !== undefined) set('name', change.name);
    if (change.params !== undefined) set('params', JSON.stringify(change.params));
    if (change.target !== undefined) {
      set('target_url', change.target?.url ?? null);
      set('target_format', change.target?.format ?? null);
    }
    if (change.enabled !== undefined) {
      set('enabled', change.enabled);
      if (change.enabled) sets.push('disabled_reason = NULL', 'failing_since = NULL');
    }
    sets.push('updated_at = clock_timestamp()');
    const { rows } = await this.pool.query<RuleRow>(`UPDATE alerts.rules SET ${sets.join(', ')} WHERE owner = $1 AND id = $2 RETURNING ${COLUMNS}`, values);
    return rows[0] === undefined ? null : toRule(rows[0]);
  }

  /** Deletes an owner's rule with its firings, queue and log; false when there was none. */
  async delete(owner: string, id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('DELETE FROM alerts.rules WHERE owner = $1 AND id = $2', [owner, id]);
    return (rowCount ?? 0) > 0;
  }

  /** The secrets signing a rule's deliveries now, newest first. */
  async liveSecrets(id: string): Promise<string[]> {
    const { rows } = await this.pool.query<{ secret: string }>(
      'SELECT secret FROM alerts.rule_secrets WHERE rule_id = $1 AND (retires_at IS NULL OR retires_at > now()) ORDER BY created_at DESC',
      [id],
    );
    return rows.map((r) => r.secret);
  }

  /**
   * Gives an owner's rule a new signing secret; the secrets it had keep signing beside it
   * for `overlapMs` (a receiver switches without missing a delivery). False when the owner
   * has no such rule.
   */
  async rotateSecret(owner: string, id: string, secret: string, overlapMs: number): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      const { rowCount } = await client.query('SELECT 1 FROM alerts.rules WHERE owner = $1 AND id = $2 FOR UPDATE', [owner, id]);
      if ((rowCount ?? 0) === 0) return false;
      await client.query(
        `UPDATE alerts.rule_secrets SET retires_at = least(coalesce(retires_at, 'infinity'), now() + make_interval(secs => $2::float8 / 1000))
         WHERE rule_id = $1`,
        [id, overlapMs],
      );
      await client.query('DELETE FROM alerts.rule_secrets WHERE rule_id = $1 AND retires_at <= now()', [id]);
      await client.query('INSERT INTO alerts.rule_secrets (rule_id, secret) VALUES ($1, $2)', [id, secret]);
      await client.query('UPDATE alerts.rules SET updated_at = clock_timestamp() WHERE id = $1', [id]);
      return true;
    });
  }
}
