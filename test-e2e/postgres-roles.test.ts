/**
 * Least privilege in PostgreSQL: k8s/engines/postgres-roles.sql creates one role per
 * service owning its schema; each service migrates its schema as that role, and the owners'
 * migrations grant reads to exactly the roles that read their tables. Checked on a real
 * server: every read the services make works, every write to another's schema and every
 * read nobody needs is refused.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALERTS_MIGRATIONS_DIR, ALERTS_SCHEMA } from '@gridlab/alerts-store';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { LAB_MIGRATIONS_DIR, LAB_SCHEMA } from '@gridlab/lab-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { createTestDatabase, WORKSPACE_ROOT, type TestDatabase } from '@gridlab/testing';
import pg from 'pg';

const SERVICES = ['indexer', 'api_gateway', 'billing', 'event_log', 'lab_forward', 'lab_backtest', 'notifier'] as const;
type Service = (typeof SERVICES)[number];
const prefix = `t${randomBytes(4).toString('hex')}_`;
let db: TestDatabase;
const pools = new Map<Service, Pool>();

function urlAs(service: Service): string {
  const url = new URL(db.url);
  url.username = prefix + service;
  url.password = '';
  return url.toString();
}

async function asSuperuser<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** 'ok', or 'denied' for a permission error (any other error fails the test). */
async function attempt(service: Service, sql: string): Promise<'ok' | 'denied'> {
  try {
    await pools.get(service)!.query(sql);
    return 'ok';
  } catch (error) {
    if ((error as { code?: string }).code === '42501') return 'denied';
    throw error;
  }
}

beforeAll(async () => {
  db = await createTestDatabase();
  await asSuperuser(async (c) => {
    await c.query(`SET gridlab.role_prefix = '${prefix}'`);
    await c.query(readFileSync(join(WORKSPACE_ROOT, 'k8s/engines/postgres-roles.sql'), 'utf8'));
  });
  // Each owner migrates its own schema, as its service does at start.
  await runMigrations({ databaseUrl: urlAs('indexer'), schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: urlAs('billing'), schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: urlAs('event_log'), schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: urlAs('lab_forward'), schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: urlAs('notifier'), schema: ALERTS_SCHEMA, dir: ALERTS_MIGRATIONS_DIR });
  for (const s of SERVICES) pools.set(s, createPool(urlAs(s), { max: 1, applicationName: s }));
});

afterAll(async () => {
  await Promise.all([...pools.values()].map((p) => p.end()));
  await db?.drop();
  const admin = new pg.Client({ connectionString: db.url.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  for (const s of SERVICES) await admin.query(`DROP ROLE IF EXISTS ${prefix}${s}`);
  await admin.end();
});

describe('one PostgreSQL role per service', () => {
  it('each owner migrated its schema; no role may create another schema', async () => {
    const owners = await asSuperuser((c) => c.query<{ nspname: string; owner: string }>(`SELECT nspname, pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname IN ('indexer','billing','events','lab','alerts') ORDER BY nspname`));
    expect(owners.rows).toEqual([
      { nspname: 'alerts', owner: `${prefix}notifier` },
      { nspname: 'billing', owner: `${prefix}billing` },
      { nspname: 'events', owner: `${prefix}event_log` },
      { nspname: 'indexer', owner: `${prefix}indexer` },
      { nspname: 'lab', owner: `${prefix}lab_forward` },
    ]);
    for (const s of SERVICES) expect(await attempt(s, `CREATE SCHEMA x_${s}`)).toBe('denied');
  });

  it('grants exactly the reads the services make', async () => {
    const reads: Record<string, Service[]> = {
      'indexer.rounds': ['indexer', 'api_gateway', 'event_log', 'lab_forward', 'lab_backtest'],
      'indexer.totals': ['indexer', 'api_gateway', 'event_log', 'lab_forward', 'lab_backtest'],
      'events.events': ['event_log', 'api_gateway'],
      'billing.api_keys': ['billing', 'api_gateway'],
      'billing.subscribers': ['billing', 'api_gateway', 'lab_forward'],
      'billing.facts': ['billing', 'event_log'],
      'billing.payments': ['billing'],
      'lab.strategies': ['lab_forward'],
      // The gateway serves the alert stream from the firings; signing secrets and the queue stay the notifier's.
      'alerts.firings': ['notifier', 'api_gateway'],
      'alerts.rules': ['notifier'],
      'alerts.rule_secrets': ['notifier'],
      'alerts.deliveries': ['notifier'],
    };
    for (const [table, readers] of Object.entries(reads)) {
      for (const s of SERVICES) {
        expect({ table, service: s, read: await attempt(s, `SELECT 1 FROM ${table} LIMIT 1`) }).toEqual({ table, service: s, read: readers.includes(s) ? 'ok' : 'denied' });
      }
    }
    // A real read path: the gateway's statistics as its own role.
    await expect(new RoundRepository(pools.get('api_gateway')!).aggregates()).resolves.toMatchObject({ roundsIndexed: 0 });
  });

  it('lets only the owner write its schema', async () => {
    const writes: [string, Service][] = [
      ['DELETE FROM indexer.rounds', 'indexer'],
      ['DELETE FROM billing.facts', 'billing'],
      ['DELETE FROM events.events', 'event_log'],
      ['DELETE FROM lab.strategies', 'lab_forward'],
      ['DELETE FROM alerts.firings', 'notifier'],
    ];
    for (const [sql, owner] of writes) {
      for (const s of SERVICES) expect({ sql, service: s, write: await attempt(s, sql) }).toEqual({ sql, service: s, write: s === owner ? 'ok' : 'denied' });
    }
  });

  it("lets the gateway record used sign-in nonces in billing's ledger, and do nothing else there", async () => {
    // The gateway's own statement (SiwsNonceLedger.consume): an insert without a conflict target.
    const consume = (nonce: string) => `INSERT INTO billing.siws_used_nonces (nonce, expires_at) VALUES ('${nonce}', now() + interval '5 minutes') ON CONFLICT DO NOTHING`;
    for (const s of SERVICES) {
      expect({ service: s, insert: await attempt(s, consume(`n-${s}`)) }).toEqual({ service: s, insert: s === 'api_gateway' || s === 'billing' ? 'ok' : 'denied' });
    }
    for (const sql of ['SELECT 1 FROM billing.siws_used_nonces', 'DELETE FROM billing.siws_used_nonces', "UPDATE billing.siws_used_nonces SET expires_at = now()"]) {
      expect({ sql, gateway: await attempt('api_gateway', sql) }).toEqual({ sql, gateway: 'denied' });
    }
    // Billing sweeps it.
    expect(await attempt('billing', 'DELETE FROM billing.siws_used_nonces WHERE expires_at < now()')).toBe('ok');
  });
});
