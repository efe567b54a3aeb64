/**
 * Forward testing over real parts: the devnet producing fast rounds, the indexer storing
 * them and announcing them on JetStream, lab-forward recording and settling predictions,
 * and the gateway serving the Strategy Lab routes.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA } from '@gridlab/billing-store';
import { isFullyKnown, type ForwardStats } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { RoundRepository } from '@gridlab/rounds-store';
import { History, backtest, normalizeDsl } from '@gridlab/strategy';
import { answersOk, createTestDatabase, freePort, runCli, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';

const SECRET = 'lab-forward-test-secret-0123456789abcdef';
const OWNER_A = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const OWNER_B = 'GsbwXfJraMomNxBcjYLcG3mxkBUiyWXAB32fGbSMQRdW';
const MIN_ROUNDS = 15;

/** Several DSLs: history-ranked and fixed shapes, progression sizing, a cooldown, a filter. */
const DSLS: Record<string, unknown>[] = [
  { base_strategy: 'cold', params: { bet_size_lamports: 10_000_000, num_squares: 5 } },
  { base_strategy: 'hot', params: { bet_size_lamports: 20_000_000, num_squares: 3, sizing_mode: 'martingale', martingale_multiplier: 2, hit_rate_lookback: 50 } },
  { base_strategy: 'spread', params: { bet_size_lamports: 5_000_000, num_squares: 8, sizing_mode: 'fibonacci', cooldown_after_loss_rounds: 1 } },
  { base_strategy: 'checkerboard', params: { bet_size_lamports: 1_000_000, sizing_mode: 'dalembert', dalembert_step_lamports: 100_000 } },
  {
    base_strategy: 'drought',
    params: { bet_size_lamports: 3_000_000, num_squares: 4, drought_threshold: 5 },
    filters: [{ metric: 'total_miners', op: '>', value: 10 }],
  },
];
/**
 * Exits on its first losing bet-round (SPEC 7.6 stop_loss_streak 1): all_25 wins a
 * square every round but loses money on many. (A session stop loss would depend on how
 * the session began: after early wins its net can stay above zero for long.)
 */
const STOPPING = { base_strategy: 'all_25', params: { bet_size_lamports: 1_000_000, stop_loss_streak: 1 } };

let db: TestDatabase;
let pool: Pool;
let devnet: Devnet;
let gateway: string;
let keyA: string;
let keyB: string;
let labForward: ServiceProcess | undefined;
const ns = testNamespace();
const processes: ServiceProcess[] = [];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    NATS_URL: ns.natsUrl,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: process.env['GRIDLAB_TEST_SERVICE_LOGS'] === '1' ? 'info' : 'warn',
    ...extra,
  };
}

async function startLabForward(): Promise<ServiceProcess> {
  const port = await freePort();
  const p = await startService(
    'services/lab-forward/src/main.ts',
    env({ OPS_PORT: String(port), LAB_MIN_ROUNDS_TO_QUALIFY: String(MIN_ROUNDS), CATCH_UP_INTERVAL_MS: '200', GAP_WAIT_MS: '2000' }),
    () => answersOk(`http://127.0.0.1:${port}/healthz`),
  );
  processes.push(p);
  return p;
}

async function until(check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function call(method: string, path: string, key: string | undefined, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${gateway}/api/v1${path}`, {
    method,
    headers: { ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

const create = (key: string, name: string, dsl: unknown) => call('POST', '/lab/strategies', key, { name, dsl });
const forwardOf = async (key: string, id: string): Promise<ForwardStats> => (await call('GET', `/lab/strategies/${id}/forward`, key)).body as ForwardStats;

/** The backtest of a strategy's session over the rounds its forward stats cover, compared field by field. */
async function expectEqualToBacktest(stats: ForwardStats, dsl: unknown): Promise<void> {
  const rounds = await new RoundRepository(pool).getRounds({ toId: stats.lastSettledRoundId!, limit: 100_000 });
  const result = backtest(History.from(rounds.filter(isFullyKnown)), normalizeDsl(dsl), { fromRoundId: stats.sessionStartRoundId!, toRoundId: stats.lastSettledRoundId! });
  // The devnet plays today's game live: the session's rounds are settled under `returns`.
  expect(rounds.some((r) => r.id >= stats.sessionStartRoundId! && r.payoutRule === 'returns' && r.winningSquare !== null)).toBe(true);
  expect({
    roundsSettled: stats.roundsSettled,
    roundsBet: stats.roundsBet,
    roundsWon: stats.roundsWon,
    squaresBet: stats.squaresBet,
    squaresWon: stats.squaresWon,
    netProfitSol: stats.netProfitSol,
    oreEarned: stats.oreEarned,
    solReturnedNetLamports: stats.solReturnedNetLamports,
    totalStakeSol: stats.totalStakeSol,
    roiPercent: stats.roiPercent,
    winRate: stats.winRate,
    perSquareWinRate: stats.perSquareWinRate,
    maxDrawdownSol: stats.maxDrawdownSol,
    minWalletSol: stats.minWalletSol,
    maxStreak: stats.maxStreak,
    equityCurve: stats.equityCurve,
  }).toEqual({
    roundsSettled: result.totalRounds,
    roundsBet: result.roundsBet,
    roundsWon: result.roundsWon,
    squaresBet: result.squaresBet,
    squaresWon: result.squaresWonOn,
    netProfitSol: result.netProfitSol,
    oreEarned: result.oreEarned,
    solReturnedNetLamports: result.solReturnedNetLamports,
    totalStakeSol: result.totalStakeSol,
    roiPercent: result.roiPercent,
    winRate: result.winRate,
    perSquareWinRate: result.perSquareWinRate,
    maxDrawdownSol: result.maxDrawdownSol,
    minWalletSol: result.minWalletSol,
    maxStreak: result.maxStreak,
    equityCurve: result.equityCurve,
  });
  if (stats.stoppedReason !== null) {
    expect(stats.stoppedReason).toBe(result.exitedEarly);
    expect(stats.stoppedAtRoundId).toBe(result.exitRoundId);
  } else {
    expect(result.exitedEarly).toBeNull();
  }
}

/** The last round the forward writer has settled (its cursor, lab.progress). */
async function settledThrough(): Promise<number> {
  return Number((await pool.query('SELECT round_id FROM lab.progress')).rows[0].round_id);
}

/**
 * Waits until the forward writer has settled `rounds` more rounds than it had now: a
 * positive sign that it went on working (and would have recorded predictions) past this point.
 */
async function writerMovedOn(rounds = 3): Promise<void> {
  const from = await settledThrough();
  await until(async () => (await settledThrough()) >= from + rounds);
}

/** Every prediction of a strategy, settled or not. */
async function predictionCount(id: string): Promise<number> {
  return (await pool.query('SELECT count(*)::int AS n FROM lab.predictions WHERE strategy_id = $1', [id])).rows[0].n;
}

/** Predictions still pending for rounds the writer has already settled (there must be none). */
async function predictionFacts(id: string): Promise<{ stalePending: number }> {
  const { rows } = await pool.query(
    `SELECT count(*)::int AS stale FROM lab.predictions
      WHERE strategy_id = $1 AND settled_at IS NULL AND round_id <= (SELECT round_id FROM lab.progress)`,
    [id],
  );
  return { stalePending: rows[0].stale };
}

beforeAll(async () => {
  db = await createTestDatabase();
  await runMigrations({ databaseUrl: db.url, schema: BILLING_SCHEMA, dir: BILLING_MIGRATIONS_DIR });
  pool = createPool(db.url);
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: 40, seed: 17 });
  const indexerPort = await freePort();
  processes.push(
    await startService(
      'services/indexer/src/main.ts',
      env({ OPS_PORT: String(indexerPort), SOLANA_RPC_URL: devnet.rpcUrl, SOLANA_WS_URL: devnet.wsUrl, ORE_PROGRAM_ID: devnet.programId, POLL_INTERVAL_MS: '200', SLOT_SECONDS: '0.01' }),
      () => answersOk(`http://127.0.0.1:${indexerPort}/healthz`),
    ),
  );
  const repo = new RoundRepository(pool);
  await until(async () => (await repo.count().catch(() => 0)) >= 45);
  const port = await freePort();
  gateway = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port) }), () => answersOk(`${gateway}/healthz`)));
  labForward = await startLabForward();
  const grant = async (owner: string) => (JSON.parse((await runCli(['admin', 'grant', '--owner', owner, '--days', '1'], env())).stdout) as { apiKey: string }).apiKey;
  [keyA, keyB] = await Promise.all([grant(OWNER_A), grant(OWNER_B)]);
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await devnet?.stop();
  await pool?.end();
  await db?.drop();
  await ns.cleanup();
});

describe('strategy records', () => {
  let id: string;

  it('creates a strategy for the key owner, active, with the DSL normalized', async () => {
    const res = await create(keyA, '  Cold five  ', DSLS[0]);
    expect(res.status).toBe(201);
    const s = res.body.strategy;
    id = s.id;
    expect(s).toMatchObject({ owner: OWNER_A, name: 'Cold five', active: true, stoppedReason: null, stoppedAtRoundId: null });
    expect(s.id).toMatch(/^stg_[1-9A-HJ-NP-Za-km-z]{22}$/);
    expect(s.dsl).toEqual(normalizeDsl(DSLS[0]));
    expect(s.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('rejects bad bodies with 400 and the JSON path', async () => {
    const badDsl = await create(keyA, 'x', { base_strategy: 'nope', params: { bet_size_lamports: 1 } });
    expect(badDsl.status).toBe(400);
    expect(badDsl.body.errors.map((e: { path: string }) => e.path)).toContain('/dsl/base_strategy');
    const unknownKey = await create(keyA, 'x', { base_strategy: 'cold', params: { bet_size_lamports: 1, colour: 'red' } });
    expect(unknownKey.body.errors.map((e: { path: string }) => e.path)).toContain('/dsl/params/colour');
    const blank = await create(keyA, '   ', DSLS[0]);
    expect([blank.status, blank.body.errors[0].path]).toEqual([400, '/name']);
    const long = await create(keyA, 'x'.repeat(81), DSLS[0]);
    expect([long.status, long.body.code]).toEqual([400, 'invalid_request']);
    const extra = await call('POST', '/lab/strategies', keyA, { name: 'x', dsl: DSLS[0], active: false });
    expect([extra.status, extra.body.errors[0].path]).toEqual([400, '/active']);
    const missing = await call('POST', '/lab/strategies', keyA, { name: 'x' });
    expect([missing.status, missing.body.errors[0].path]).toEqual([400, '/dsl']);
    const malformed = await call('POST', '/lab/strategies', keyA, '{"name":');
    expect(malformed.status).toBe(400);
  });

  it('needs a key on every strategy path', async () => {
    for (const [method, path] of [
      ['POST', '/lab/strategies'],
      ['GET', '/lab/strategies'],
      ['GET', `/lab/strategies/${id}`],
      ['PATCH', `/lab/strategies/${id}`],
      ['DELETE', `/lab/strategies/${id}`],
      ['GET', `/lab/strategies/${id}/forward`],
      ['GET', `/lab/leaderboard/${id}`],
    ] as const) {
      const res = await call(method, path, undefined);
      expect([method, path, res.status, res.body.code]).toEqual([method, path, 401, 'missing_api_key']);
    }
  });

  it('lists the caller’s strategies with their figures, and shows one with its prediction count', async () => {
    const list = await call('GET', '/lab/strategies', keyA);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(list.body.strategies.length);
    const item = list.body.strategies.find((s: { id: string }) => s.id === id);
    expect(item.stats).toEqual({ roundsSettled: expect.any(Number), roundsWon: expect.any(Number), netProfitSol: expect.any(Number), roiPercent: expect.any(Number) });
    expect((await call('GET', '/lab/strategies', keyB)).body).toEqual({ count: 0, strategies: [] });
    await until(async () => (await call('GET', `/lab/strategies/${id}`, keyA)).body.predictionCount > 0);
    const one = await call('GET', `/lab/strategies/${id}`, keyA);
    expect(one.body.strategy.id).toBe(id);
    // The DSL reads back exactly as normalized, keys in the same order.
    const normalized = JSON.stringify(normalizeDsl(DSLS[0]));
    expect(JSON.stringify(item.dsl)).toBe(normalized);
    expect(JSON.stringify(one.body.strategy.dsl)).toBe(normalized);
  });

  it('PATCH changes only name and active', async () => {
    const renamed = await call('PATCH', `/lab/strategies/${id}`, keyA, { name: ' Renamed ' });
    expect([renamed.status, renamed.body.strategy.name, renamed.body.strategy.active]).toEqual([200, 'Renamed', true]);
    const dsl = await call('PATCH', `/lab/strategies/${id}`, keyA, { dsl: DSLS[1] });
    expect([dsl.status, dsl.body.errors[0].path]).toEqual([400, '/dsl']);
    // {} is a no-op: 200, the strategy exactly as it was (updatedAt included).
    const before = await call('GET', `/lab/strategies/${id}`, keyA);
    const noop = await call('PATCH', `/lab/strategies/${id}`, keyA, {});
    expect([noop.status, noop.body.strategy]).toEqual([200, before.body.strategy]);
    expect((await call('PATCH', `/lab/strategies/${id}`, keyA, { active: 'yes' })).status).toBe(400);
  });

  it('answers 404 for another owner’s strategy and for ids that name none', async () => {
    for (const [method, path, body] of [
      ['GET', `/lab/strategies/${id}`, undefined],
      ['PATCH', `/lab/strategies/${id}`, { name: 'mine' }],
      ['DELETE', `/lab/strategies/${id}`, undefined],
      ['GET', `/lab/strategies/${id}/forward`, undefined],
    ] as const) {
      const res = await call(method, path, keyB, body);
      expect([method, res.status, res.body.code]).toEqual([method, 404, 'strategy_not_found']);
    }
    expect((await call('GET', '/lab/strategies/stg_1111111111111111111111', keyA)).status).toBe(404);
    expect((await call('GET', '/lab/strategies/not-an-id', keyA)).body.code).toBe('strategy_not_found');
    expect((await call('GET', `/lab/strategies/${id}`, keyA)).body.strategy.name).toBe('Renamed');
  });

  it('refuses the 101st strategy with 409 strategy_limit_reached', async () => {
    // 99 stored directly (the API's rate limit would make 100 creations slow), inactive.
    await pool.query(
      `INSERT INTO lab.strategies (id, owner, name, dsl, active, session_start_round_id, created_at, updated_at)
       SELECT 'stg_' || rpad('F' || translate(i::text, '0', 'z'), 22, 'x'), $1, 'filler ' || i, $2, false, 1, now(), now() FROM generate_series(1, 99) AS i`,
      [OWNER_B, JSON.stringify(normalizeDsl(DSLS[0]))],
    );
    await pool.query("INSERT INTO lab.forward_stats (strategy_id) SELECT id FROM lab.strategies WHERE owner = $1", [OWNER_B]);
    const hundredth = await create(keyB, 'hundredth', DSLS[0]);
    expect(hundredth.status).toBe(201);
    const over = await create(keyB, 'one too many', DSLS[0]);
    expect([over.status, over.body.code]).toEqual([409, 'strategy_limit_reached']);
    expect((await call('GET', '/lab/strategies', keyB)).body.count).toBe(100);
    expect((await call('DELETE', `/lab/strategies/${hundredth.body.strategy.id}`, keyB)).body).toEqual({ ok: true });
    const again = await create(keyB, 'room again', DSLS[0]);
    expect(again.status).toBe(201);
    await call('DELETE', `/lab/strategies/${again.body.strategy.id}`, keyB);
    await pool.query('DELETE FROM lab.strategies WHERE owner = $1', [OWNER_B]);
  });
});

describe('forward testing', () => {
  const ids: string[] = [];
  let stoppingId: string;

  it('records a prediction for the open round and settles it when the round settles', async () => {
    for (const [i, dsl] of DSLS.entries()) ids.push((await create(keyA, `dsl ${i}`, dsl)).body.strategy.id);
    stoppingId = (await create(keyA, 'stops', STOPPING)).body.strategy.id;
    await until(async () => (await pool.query('SELECT count(*)::int AS n FROM lab.predictions WHERE strategy_id = $1 AND settled_at IS NULL', [ids[0]])).rows[0].n === 1);
    await until(async () => (await forwardOf(keyA, ids[0]!)).roundsObserved >= 3);
    const stats = await forwardOf(keyA, ids[0]!);
    expect(stats.pendingCount).toBeLessThanOrEqual(1);
    // Recorded while the round was open, not caught up afterwards. Devnet rounds last ~0.1 s,
    // so on two busy cores some settle before the writer's next look (those are marked late);
    // how many is the machine's, not the contract's.
    const recorded = await pool.query('SELECT count(*) FILTER (WHERE NOT late)::int AS on_time, count(*)::int AS n FROM lab.predictions WHERE strategy_id = $1', [ids[0]]);
    expect(recorded.rows[0].on_time).toBeGreaterThanOrEqual(1);
  });

  it('ends the session on a stop: inactive, with the reason and round', async () => {
    await until(async () => (await forwardOf(keyA, stoppingId)).active === false);
    const stats = await forwardOf(keyA, stoppingId);
    expect(stats.stoppedReason).toBe('stop_loss_streak');
    expect(stats.stoppedAtRoundId).toBe(stats.lastSettledRoundId);
    expect(stats.pendingCount).toBe(0);
    await expectEqualToBacktest(stats, STOPPING);
    const observed = stats.roundsObserved;
    const predictions = await predictionCount(stoppingId);
    await writerMovedOn();
    expect((await forwardOf(keyA, stoppingId)).roundsObserved).toBe(observed);
    expect(await predictionCount(stoppingId)).toBe(predictions);
  });

  it('keeps forward stats equal to a backtest of the same rounds across a kill -9 and restart, settling nothing twice', async () => {
    await until(async () => (await forwardOf(keyA, ids[0]!)).roundsSettled >= 20);
    await labForward!.stop('SIGKILL');
    const { rows } = await pool.query('SELECT round_id FROM lab.progress');
    const stoppedAt = Number(rows[0].round_id);
    // Rounds settle while lab-forward is down.
    await until(async () => ((await new RoundRepository(pool).latestId()) ?? 0) >= stoppedAt + 5);
    labForward = await startLabForward();
    await until(async () => Number((await pool.query('SELECT round_id FROM lab.progress')).rows[0].round_id) >= stoppedAt + 15);
    let late = 0;
    let ore = 0n;
    for (const [i, id] of ids.entries()) {
      const stats = await forwardOf(keyA, id);
      expect(stats.lastSettledRoundId).toBeGreaterThan(stoppedAt);
      late += stats.lateCount;
      ore += BigInt(stats.oreEarned);
      await expectEqualToBacktest(stats, DSLS[i]);
      expect((await predictionFacts(id)).stalePending).toBe(0);
    }
    expect(late).toBeGreaterThan(0);
    // Live returns rounds paid the strategies ORE, priced into their PnL like a backtest's.
    expect(ore).toBeGreaterThan(0n);
    const counts = await pool.query(
      `SELECT p.strategy_id, count(*)::int AS settled, sum(p.pnl_lamports)::bigint AS pnl, f.rounds_observed, f.net_lamports
         FROM lab.predictions p JOIN lab.forward_stats f ON f.strategy_id = p.strategy_id
        WHERE p.settled_at IS NOT NULL AND p.strategy_id = ANY($1) GROUP BY p.strategy_id, f.rounds_observed, f.net_lamports`,
      [ids],
    );
    // A prediction settled twice would count, and add its PnL, twice (one statement: one snapshot).
    expect(counts.rows).toHaveLength(ids.length);
    for (const r of counts.rows) expect([r.settled, Number(r.pnl)]).toEqual([r.rounds_observed, Number(r.net_lamports)]);
  });

  it('PATCH active=false stops predictions; active=true starts a new session', async () => {
    const id = ids[3]!;
    const off = await call('PATCH', `/lab/strategies/${id}`, keyA, { active: false });
    expect(off.body.strategy.active).toBe(false);
    const frozen = await forwardOf(keyA, id);
    expect(frozen.pendingCount).toBe(0);
    const predictions = await predictionCount(id);
    await writerMovedOn();
    expect((await forwardOf(keyA, id)).roundsObserved).toBe(frozen.roundsObserved);
    expect(await predictionCount(id)).toBe(predictions);
    const on = await call('PATCH', `/lab/strategies/${id}`, keyA, { active: true });
    expect(on.body.strategy.active).toBe(true);
    await until(async () => (await forwardOf(keyA, id)).roundsObserved > frozen.roundsObserved);
    const resumed = await forwardOf(keyA, id);
    expect(resumed.sessionStartRoundId).toBeGreaterThan(frozen.lastSettledRoundId!);
    const again = await call('PATCH', `/lab/strategies/${stoppingId}`, keyA, { active: true });
    expect(again.body.strategy).toMatchObject({ active: true, stoppedReason: null, stoppedAtRoundId: null });
  });

  it('shows qualifying strategies on the public leaderboard, best ROI first', async () => {
    const fresh = (await create(keyA, 'too new', DSLS[0])).body.strategy.id as string;
    await until(async () => (await call('GET', '/lab/leaderboard', undefined)).body.count >= ids.length);
    const board = (await call('GET', '/lab/leaderboard', undefined)).body;
    expect(board.minRoundsToQualify).toBe(MIN_ROUNDS);
    expect(Date.parse(board.generatedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(board.entries.map((e: { id: string }) => e.id)).not.toContain(fresh);
    for (const e of board.entries) {
      expect(e.roundsSettled).toBeGreaterThanOrEqual(MIN_ROUNDS);
      expect(e.ownerShort).toBe('9xQe...VFin');
      expect(Object.keys(e).sort()).toEqual(['id', 'name', 'ownerShort', 'rank', 'roiPercent', 'roundsSettled']);
    }
    for (let i = 1; i < board.entries.length; i++) {
      const [a, b] = [board.entries[i - 1], board.entries[i]];
      expect(a.roiPercent > b.roiPercent || (a.roiPercent === b.roiPercent && a.roundsSettled >= b.roundsSettled)).toBe(true);
    }
    const top = board.entries[0];
    const detail = await call('GET', `/lab/leaderboard/${top.id}`, keyB);
    expect(detail.status).toBe(200);
    expect(detail.body.strategy).toMatchObject({ id: top.id, name: top.name, ownerShort: '9xQe...VFin' });
    expect(detail.body.strategy.dsl).toEqual(expect.objectContaining({ base_strategy: expect.any(String) }));
    expect(detail.body.forwardTest.equityCurve.length).toBeGreaterThan(0);
    const absent = await call('GET', `/lab/leaderboard/${fresh}`, keyA);
    expect([absent.status, absent.body.code]).toEqual([404, 'strategy_not_found']);
  });

  it('deleting a strategy takes it off the board and out of the forward test; its settled record is kept for a restore', async () => {
    const board = (await call('GET', '/lab/leaderboard', undefined)).body;
    const id = board.entries[0].id as string;
    const settled = async () =>
      (await pool.query('SELECT count(*) FILTER (WHERE settled_at IS NOT NULL)::int AS n, count(*) FILTER (WHERE settled_at IS NULL)::int AS pending FROM lab.predictions WHERE strategy_id = $1', [id])).rows[0];
    expect((await settled()).n).toBeGreaterThan(0);
    expect((await call('DELETE', `/lab/strategies/${id}`, keyA)).body).toEqual({ ok: true });
    const before = (await settled()).n as number;
    // No new prediction is recorded for it; what was settled stays (a deletion is recoverable).
    await writerMovedOn();
    expect(await settled()).toEqual({ n: before, pending: 0 });
    expect((await call('GET', `/lab/leaderboard/${id}`, keyA)).status).toBe(404);
    expect((await call('GET', '/lab/leaderboard', undefined)).body.entries.map((e: { id: string }) => e.id)).not.toContain(id);
    expect((await call('GET', `/lab/strategies/${id}`, keyA)).status).toBe(404);
    expect((await call('DELETE', `/lab/strategies/${id}`, keyA)).status).toBe(404);
  });

  it("stops forward-testing an expired subscription's strategies, and resumes them with a new session on renewal", async () => {
    const created = await create(keyB, 'Lapsing', DSLS[0]);
    expect(created.status).toBe(201);
    const id = created.body.strategy.id as string;
    const row = async () =>
      (
        await pool.query<{ active: boolean; stopped_reason: string | null; session_seq: number; session_start_round_id: string; pending: number; observed: number }>(
          `SELECT s.active, s.stopped_reason, s.session_seq, s.session_start_round_id,
                  (SELECT count(*)::int FROM lab.predictions p WHERE p.strategy_id = s.id AND p.settled_at IS NULL) AS pending,
                  f.rounds_observed AS observed
             FROM lab.strategies s JOIN lab.forward_stats f ON f.strategy_id = s.id WHERE s.id = $1`,
          [id],
        )
      ).rows[0]!;
    await until(async () => (await row()).observed > 0);
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() - interval '1 second' WHERE owner_pubkey = $1`, [OWNER_B]);
    await until(async () => !(await row()).active);
    const lapsed = await row();
    expect([lapsed.stopped_reason, lapsed.pending]).toEqual(['subscription_expired', 0]);
    // Nothing more is observed while the subscription has lapsed.
    const latest = Number((await pool.query('SELECT max(id) AS id FROM indexer.rounds')).rows[0].id);
    // The forward writer itself (not only the indexer) went past rounds stored after the lapse.
    await until(async () => (await settledThrough()) > latest + 1);
    expect((await row()).observed).toBe(lapsed.observed);
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() + interval '1 day' WHERE owner_pubkey = $1`, [OWNER_B]);
    await until(async () => (await row()).active);
    const renewed = await row();
    expect([renewed.stopped_reason, renewed.session_seq]).toEqual([null, lapsed.session_seq + 1]);
    expect(Number(renewed.session_start_round_id)).toBeGreaterThan(latest);
    await until(async () => (await row()).observed > 0 && (await forwardOf(keyB, id)).sessionStartRoundId === Number(renewed.session_start_round_id));
  });
});
