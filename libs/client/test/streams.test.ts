/**
 * The client against the real gateway (with the indexer on a devnet): typed reads, dump()
 * over NDJSON, and the streams across a gateway restart: /events/stream resumes with
 * Last-Event-ID (no event lost or repeated), watchRounds() carries on from the snapshot
 * stream.
 */
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA, appendEvents } from '@gridlab/events-store';
import { RoundRepository } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, freePort, runCli, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { GridlabApiError, GridlabClient, type LogEvent, type RoundWatchEvent } from '../src/index';

const SECRET = 'client-streams-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

let devnet: Devnet;
let db: TestDatabase;
let pool: Pool;
let indexer: ServiceProcess;
let gateway: ServiceProcess | null = null;
let gatewayPort: number;
let client: GridlabClient;
const ns = testNamespace();

const env = (): NodeJS.ProcessEnv => ({
  DATABASE_URL: db.url,
  NATS_PREFIX: ns.natsPrefix,
  REDIS_PREFIX: ns.redisPrefix,
  API_KEY_HMAC_SECRET: SECRET,
  SESSION_SECRET: TEST_SESSION_SECRET,
  LOG_LEVEL: 'warn',
});

async function startGateway(): Promise<void> {
  gateway = await startService('services/api-gateway/src/main.ts', { ...env(), PORT: String(gatewayPort) }, () =>
    answersOk(`http://127.0.0.1:${gatewayPort}/healthz`),
  );
}

let nextEvent = 1;
/** Appends `n` milestone events to the log, as the event-log writer does. */
async function append(n: number): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const events = Array.from({ length: n }, () => {
      const i = nextEvent++;
      return { dedupKey: `client-test-${i}`, kind: 'milestone' as const, ts: new Date().toISOString(), fields: { roundId: i, milestone: 'rounds', value: i } };
    });
    await appendEvents(c, events);
    await c.query('COMMIT');
  } finally {
    c.release();
  }
}

async function take<T>(it: AsyncIterator<T>, until: (seen: T[]) => boolean, into: T[] = []): Promise<T[]> {
  while (!until(into)) {
    const next = await it.next();
    if (next.done === true) throw new Error('the stream ended');
    into.push(next.value);
  }
  return into;
}

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: 30, seed: 13 });
  db = await createTestDatabase();
  pool = createPool(db.url);
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  const indexerPort = await freePort();
  indexer = await startService(
    'services/indexer/src/main.ts',
    { ...env(), OPS_PORT: String(indexerPort), SOLANA_RPC_URL: devnet.rpcUrl, SOLANA_WS_URL: devnet.wsUrl, ORE_PROGRAM_ID: devnet.programId, POLL_INTERVAL_MS: '200', SLOT_SECONDS: '0.02' },
    () => answersOk(`http://127.0.0.1:${indexerPort}/healthz`),
  );
  const repo = new RoundRepository(pool);
  while ((await repo.count().catch(() => 0)) < 30) await new Promise((r) => setTimeout(r, 100));
  gatewayPort = await freePort();
  await startGateway();
  const granted = await runCli(['admin', 'grant', '--owner', OWNER, '--days', '1'], { ...process.env, ...env() });
  if (granted.code !== 0) throw new Error(granted.stderr);
  client = new GridlabClient({ baseUrl: `http://127.0.0.1:${gatewayPort}`, apiKey: (JSON.parse(granted.stdout) as { apiKey: string }).apiKey });
});

afterAll(async () => {
  await gateway?.stop();
  await indexer?.stop();
  await devnet?.stop();
  await pool?.end();
  await db?.drop();
  await ns.cleanup();
});

describe('@gridlab/client against the gateway', () => {
  it('reads typed rounds, statistics and a square, and dumps the history as NDJSON', async () => {
    const { rounds } = await client.rounds({ limit: 5 });
    expect(rounds).toHaveLength(5);
    const newest = rounds[0]!;
    const one = await client.round(newest.id);
    expect(one).toMatchObject({ id: newest.id, slotHash: newest.slotHash });
    // Rounds keep settling on the devnet: a newer one may exist by now.
    expect(one.nextId === null || one.nextId > newest.id).toBe(true);
    const stats = await client.stats();
    expect(stats.roundsIndexed).toBeGreaterThanOrEqual(30);
    expect((await client.grid(3, { limit: 10 })).square).toBe(3);
    expect(client.rateLimit).toEqual({ limit: expect.any(Number), remaining: expect.any(Number), reset: expect.any(Number) });

    const ids: number[] = [];
    for await (const round of client.dump({ to: newest.id })) ids.push(round.id);
    const stored = await pool.query<{ id: string }>('SELECT id FROM indexer.rounds WHERE id <= $1 ORDER BY id', [newest.id]);
    expect(ids).toEqual(stored.rows.map((r) => Number(r.id)));

    const missing = await client.round(newest.id + 1_000_000).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(GridlabApiError);
    expect(missing).toMatchObject({ status: 404, code: 'round_not_found' });
    await expect(new GridlabClient({ baseUrl: client.baseUrl }).live()).rejects.toMatchObject({ status: 401, code: 'missing_api_key' });
  });

  it('follows the event log across a gateway restart with no event lost or repeated', async () => {
    await append(5);
    const reconnects: Array<string | null> = [];
    const controller = new AbortController();
    const stream = client.eventStream({ since: 0, signal: controller.signal, reconnectDelayMs: 200, onReconnect: (r) => reconnects.push(r.lastEventId) });
    const it = stream[Symbol.asyncIterator]();
    const seen: LogEvent[] = [];
    await take(it, (s) => s.length >= 5, seen);
    await append(3);
    await take(it, (s) => s.length >= 8, seen);

    // The gateway goes away mid-stream; events keep being appended while it is down.
    await gateway!.stop('SIGKILL');
    await append(4);
    await startGateway();
    await append(3);
    await take(it, (s) => s.length >= 15, seen);
    controller.abort();
    expect(await it.next()).toEqual({ done: true, value: undefined });

    expect(seen.map((e) => e.id)).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect(reconnects.length).toBeGreaterThanOrEqual(1);
    expect(reconnects[0]).toBe('8');
  });

  it('watches rounds open, update and settle, across a gateway restart', async () => {
    const controller = new AbortController();
    const it = client.watchRounds({ signal: controller.signal, reconnectDelayMs: 200 })[Symbol.asyncIterator]();
    const seen: RoundWatchEvent[] = [];
    const settled = () => seen.filter((e) => e.type === 'settled');
    await take(it, () => settled().length >= 1, seen);
    await gateway!.stop('SIGKILL');
    await startGateway();
    const before = settled().length;
    await take(it, () => settled().length >= before + 2, seen);
    controller.abort();
    await it.return?.(undefined);

    expect(seen[0]!.type).toBe('opened');
    // Every round that settled while watching, the restart included: ascending, none twice, no gap.
    const settledIds = settled().map((e) => e.roundId);
    expect(settledIds).toEqual(Array.from({ length: settledIds.length }, (_, i) => settledIds[0]! + i));
    const opened = seen.filter((e) => e.type === 'opened').map((e) => e.roundId);
    expect([...opened].sort((a, b) => a - b)).toEqual(opened);
    // Updates carry new figures of the round open at the time (the last one opened before them).
    const updated = seen.flatMap((e, i) => (e.type === 'updated' ? [{ e, current: opened.filter((id) => seen.findIndex((o) => o.type === 'opened' && o.roundId === id) < i).at(-1) }] : []));
    expect(updated.length).toBeGreaterThan(0);
    for (const { e, current } of updated) expect(e.roundId).toBe(current);
    // Each settled round is the stored round of that id.
    for (const e of settled()) if (e.type === 'settled') expect((await client.round(e.roundId)).slotHash).toBe(e.round.slotHash);
  });
});
