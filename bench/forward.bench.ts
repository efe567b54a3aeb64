import { connectBus, encodeMessage, ensureRoundsStream, jetStreamOf, publishDurable } from '@gridlab/bus';
import { eventValidator, natsNames } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { LAB_MIGRATIONS_DIR, LAB_SCHEMA } from '@gridlab/lab-store';
import { createLogger } from '@gridlab/logger';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { normalizeDsl } from '@gridlab/strategy';
import { answersOk, createTestDatabase, freePort, syntheticRounds, testNamespace, type ServiceProcess } from '@gridlab/testing';
import { deployService, type DeployedService } from './lab-process';
import type { Bench } from './types';

const validateRound = eventValidator('roundSettled');

const STRATEGIES = 20_000;
const HISTORY_ROUNDS = 5_000;
const LIVE_ROUNDS = 5;
const TARGET_SETTLE_MS = 2_000;

/** A spread of DSLs: history-ranked and fixed shapes, every sizing mode, filters and stops. */
const DSLS = [
  { base_strategy: 'cold', params: { bet_size_lamports: 1_000_000, num_squares: 5 } },
  { base_strategy: 'hot', params: { bet_size_lamports: 1_000_000, num_squares: 3, sizing_mode: 'martingale', hit_rate_lookback: 100 } },
  { base_strategy: 'spread', params: { bet_size_lamports: 1_000_000, num_squares: 8, sizing_mode: 'fibonacci' } },
  { base_strategy: 'drought', params: { bet_size_lamports: 1_000_000, num_squares: 4, drought_threshold: 20 } },
  { base_strategy: 'top_hit_rate', params: { bet_size_lamports: 1_000_000, num_squares: 5, sizing_mode: 'kelly' } },
  { base_strategy: 'corners', params: { bet_size_lamports: 1_000_000, sizing_mode: 'dalembert' } },
  { base_strategy: 'checkerboard', params: { bet_size_lamports: 1_000_000 }, filters: [{ metric: 'total_deployed_pctile', op: '<', value: 90 }] },
  { base_strategy: 'min_miners', params: { bet_size_lamports: 1_000_000, num_squares: 6, cooldown_after_loss_rounds: 2 } },
].map((d) => JSON.stringify(normalizeDsl(d)));

/** Sum and count of a Prometheus histogram on /metrics. */
async function histogram(url: string, name: string): Promise<{ sum: number; count: number }> {
  const text = await (await fetch(url)).text();
  const value = (suffix: string): number => Number(new RegExp(`^${name}_${suffix}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  return { sum: value('sum'), count: value('count') };
}

async function progress(pool: Pool): Promise<number> {
  return Number((await pool.query('SELECT round_id FROM lab.progress')).rows[0].round_id ?? 0);
}

async function pendingFor(pool: Pool, roundId: number): Promise<number> {
  return (await pool.query('SELECT count(*)::int AS n FROM lab.predictions WHERE round_id = $1', [roundId])).rows[0].n as number;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Forward settlement (SPEC 8): 20,000 active strategies (eight DSL shapes) in a
 * lab-forward process as its image runs it (its bundle, deployService) over 5,000 rounds
 * of history. For each of five new rounds: stored
 * and announced on JetStream as the indexer does, then the time until lab-forward has
 * committed every strategy's settlement (its progress row moved), and the time it took
 * to record the 20,000 predictions of the next round (the writer's own timing, from /metrics).
 */
const bench: Bench = async () => {
  const db = await createTestDatabase();
  const ns = testNamespace();
  const pool = createPool(db.url);
  const nc = await connectBus({ servers: ns.natsUrl, name: 'bench-forward', logger: createLogger({ service: 'bench', silent: true }) });
  let service: ServiceProcess | undefined;
  let deployed: DeployedService | undefined;
  try {
    const forward = (deployed = await deployService('lab-forward'));
    await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
    await runMigrations({ databaseUrl: db.url, schema: LAB_SCHEMA, dir: LAB_MIGRATIONS_DIR });
    // lab-forward forward-tests only strategies whose owner's subscription is paid.
    await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
    const repo = new RoundRepository(pool);
    const rounds = syntheticRounds(HISTORY_ROUNDS + LIVE_ROUNDS, { seed: 31, firstId: 1 });
    await repo.insertMany(rounds.slice(0, HISTORY_ROUNDS));
    await pool.query(
      `INSERT INTO lab.strategies (id, owner, name, dsl, active, session_start_round_id, created_at, updated_at)
       SELECT 'stg_' || rpad('B' || translate(i::text, '0', 'z'), 22, 'x'), 'Owner' || (i / 100) || 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
              'bench ' || i, ($1::jsonb[])[1 + i % $2], true, $3, now(), now()
         FROM generate_series(1, $4) AS i`,
      [DSLS, DSLS.length, HISTORY_ROUNDS + 1, STRATEGIES],
    );
    await pool.query('INSERT INTO lab.forward_stats (strategy_id) SELECT id FROM lab.strategies');
    await pool.query(
      `INSERT INTO billing.subscribers (id, owner_pubkey, plan, paid_until)
       SELECT 'sub_' || rpad('B' || translate(n::text, '0', 'z'), 22, 'x'), owner, 'grant', now() + interval '1 day'
         FROM (SELECT DISTINCT owner, dense_rank() OVER (ORDER BY owner) AS n FROM lab.strategies) AS o`,
    );
    await pool.query('ANALYZE');

    const opsPort = await freePort();
    const metrics = `http://127.0.0.1:${opsPort}/metrics`;
    service = await forward.start(
      { DATABASE_URL: db.url, NATS_URL: ns.natsUrl, NATS_PREFIX: ns.natsPrefix, OPS_PORT: String(opsPort), LOG_LEVEL: 'warn', CATCH_UP_INTERVAL_MS: '60000' },
      () => answersOk(`http://127.0.0.1:${opsPort}/healthz`),
      120_000,
    );
    // The first round's predictions (runners built for 20,000 sessions, then decided).
    while ((await pendingFor(pool, HISTORY_ROUNDS + 1)) < STRATEGIES) await new Promise((r) => setTimeout(r, 20));
    const first = await histogram(metrics, 'lab_forward_record_seconds');

    const names = natsNames(ns.natsPrefix);
    await ensureRoundsStream(nc, names);
    const js = jetStreamOf(nc);
    const settleMs: number[] = [];
    const recordMs: number[] = [];
    let recorded = first;
    for (const round of rounds.slice(HISTORY_ROUNDS)) {
      const sent = performance.now();
      await repo.insertSettled(round);
      await publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, round), String(round.id));
      while ((await progress(pool)) < round.id) await new Promise((r) => setTimeout(r, 5));
      settleMs.push(performance.now() - sent);
      while ((await pendingFor(pool, round.id + 1)) < STRATEGIES) await new Promise((r) => setTimeout(r, 5));
      const now = await histogram(metrics, 'lab_forward_record_seconds');
      recordMs.push((now.sum - recorded.sum) * 1000);
      recorded = now;
    }
    const settled = Number((await pool.query('SELECT count(*) AS n FROM lab.predictions WHERE settled_at IS NOT NULL')).rows[0].n);
    if (settled !== STRATEGIES * LIVE_ROUNDS) throw new Error(`expected ${STRATEGIES * LIVE_ROUNDS} settled predictions, found ${settled}`);
    const settle = Math.round(median(settleMs));
    return [
      {
        key: 'forward.settleMs',
        label: `round settled → ${STRATEGIES.toLocaleString('en')} strategies settled (median of ${LIVE_ROUNDS})`,
        value: settle,
        unit: 'ms',
        target: `<= ${TARGET_SETTLE_MS}`,
        met: settle <= TARGET_SETTLE_MS,
      },
      { key: 'forward.settleMaxMs', label: 'round settled → strategies settled, slowest', value: Math.round(Math.max(...settleMs)), unit: 'ms' },
      { key: 'forward.recordMs', label: `record ${STRATEGIES.toLocaleString('en')} predictions of a new round (median)`, value: Math.round(median(recordMs)), unit: 'ms' },
      { key: 'forward.firstRecordMs', label: `first round after start: ${STRATEGIES.toLocaleString('en')} runners built + recorded`, value: Math.round(first.sum * 1000), unit: 'ms' },
    ];
  } finally {
    await service?.stop();
    deployed?.remove();
    await nc.drain();
    await pool.end();
    await db.drop();
    await ns.cleanup();
  }
};

export default bench;
