import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { createPool, type Pool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { RoundRepository } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, runCli, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { connectBus, decodeMessage } from '@gridlab/bus';
import { eventValidator, isDateTime, natsNames, type KeyShared } from '@gridlab/contracts';
import Ajv2020 from 'ajv/dist/2020';
import { loadOpenApi } from '../src/http/openapi';

const validateKeyShared = eventValidator('keyShared');

const ROOT = join(__dirname, '..', '..', '..');
const SECRET = 'gateway-test-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const OTHER_OWNER = 'GvDMxPzN1sCj7L26YDK2HnMRXEQmQ2aemov8YBtPS7vR';

let devnet: Devnet;
let db: TestDatabase;
let pool: Pool;
let indexer: ServiceProcess;
const ns = testNamespace();
const gateways: { child: ChildProcess; url: string }[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

function env(): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, REDIS_PREFIX: ns.redisPrefix, API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET, LOG_LEVEL: 'warn' };
}

async function startGateway(extraEnv: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'services/api-gateway/src/main.ts')], {
    cwd: ROOT,
    env: { ...env(), PORT: String(port), ...extraEnv },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  gateways.push({ child, url });
  // Generous: beside other test files on two cores, tsx compiling the gateway took over 30 s.
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return url;
    } catch {
      if (Date.now() > deadline) throw new Error('gateway did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function gridlab(...args: string[]): Promise<Record<string, unknown>> {
  const { code, stdout, stderr } = await runCli(args, env());
  if (code !== 0) throw new Error(`gridlab ${args.join(' ')} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Validates a real response body against a schema of the OpenAPI document. */
const openapi = (() => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  ajv.addSchema({ ...loadOpenApi().document, $id: 'openapi' });
  return (schema: string, body: unknown): void => {
    const validate = ajv.getSchema(`openapi#/components/schemas/${schema}`)!;
    if (!validate(body)) throw new Error(`${schema}: ${ajv.errorsText(validate.errors)}`);
  };
})();

const get = (url: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers: { ...(key === undefined ? {} : { Authorization: `Bearer ${key}` }), ...headers } });

let base: string;
let second: string;
let apiKey: string;

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 10, roundSlots: 8, intermissionSlots: 2, historyRounds: 40, seed: 5 });
  db = await createTestDatabase();
  pool = createPool(db.url);
  const indexerPort = await freePort();
  indexer = await startService(
    'services/indexer/src/main.ts',
    {
      ...env(),
      OPS_PORT: String(indexerPort),
      SOLANA_RPC_URL: devnet.rpcUrl,
      SOLANA_WS_URL: devnet.wsUrl,
      ORE_PROGRAM_ID: devnet.programId,
      POLL_INTERVAL_MS: '200',
      SLOT_SECONDS: '0.01',
    },
    () => answersOk(`http://127.0.0.1:${indexerPort}/healthz`),
  );
  const repo = new RoundRepository(pool);
  while ((await repo.count().catch(() => 0)) < 45) await new Promise((r) => setTimeout(r, 50));
  [base, second] = await Promise.all([startGateway(), startGateway()]);
  apiKey = (await gridlab('admin', 'grant', '--owner', OWNER, '--days', '30'))['apiKey'] as string;
}, 300_000);

afterAll(async () => {
  for (const g of gateways) g.child.kill('SIGTERM');
  await Promise.all(gateways.map((g) => new Promise((r) => (g.child.exitCode === null ? g.child.once('exit', r) : r(null)))));
  await indexer.stop();
  await devnet.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('authentication', () => {
  it('answers 401 with WWW-Authenticate for a missing, malformed or unknown key', async () => {
    for (const [key, code] of [
      [undefined, 'missing_api_key'],
      ['not-a-key', 'invalid_api_key'],
      [`grid_${'1'.repeat(43)}`, 'invalid_api_key'],
    ] as const) {
      const res = await get(`${base}/api/v1/stats`, key);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await res.json()).toMatchObject({ type: 'about:blank', status: 401, code });
    }
  });

  it('answers 402 once the paid period has ended', async () => {
    const issued = await gridlab('admin', 'grant', '--owner', OTHER_OWNER, '--days', '1');
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() - interval '1 minute' WHERE id = $1`, [issued['subscriberId']]);
    const res = await get(`${base}/api/v1/stats`, issued['apiKey'] as string);
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ code: 'subscription_expired' });
  });

  it('rejects a revoked key at once on both gateway replicas', async () => {
    const owner = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
    const issued = await gridlab('admin', 'grant', '--owner', owner, '--days', '1');
    const key = issued['apiKey'] as string;
    expect((await get(`${base}/api/v1/stats`, key)).status).toBe(200);
    expect((await get(`${second}/api/v1/stats`, key)).status).toBe(200);
    expect(await gridlab('admin', 'revoke', '--owner', owner)).toEqual({ owner, revoked: true });
    expect((await get(`${base}/api/v1/stats`, key)).status).toBe(401);
    expect((await get(`${second}/api/v1/stats`, key)).status).toBe(401);
  });
});

describe('data endpoints', () => {
  it('serves /live from memory with rate-limit headers and gzip on request', async () => {
    const res = await get(`${base}/api/v1/live`, apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const live = (await res.json()) as { roundId: number; deployed: number[]; status: string; stale: boolean };
    openapi('LiveView', live);
    // The indexer publishes as the devnet runs: the snapshot is fresh.
    expect(live.stale).toBe(false);
    expect(Number(res.headers.get('age'))).toBeGreaterThanOrEqual(0);
    expect(live.deployed).toHaveLength(25);
    expect(['waiting', 'active', 'intermission']).toContain(live.status);
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      const req = request(`${base}/api/v1/live`, { headers: { Authorization: `Bearer ${apiKey}`, 'Accept-Encoding': 'gzip' } }, (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => resolve({ encoding: r.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });
    // Only bodies over 1 KiB are compressed; a waiting round's snapshot can be smaller.
    const text = raw.encoding === 'gzip' ? gunzipSync(raw.body).toString() : raw.body.toString();
    expect(raw.encoding).toBe(Buffer.byteLength(text) > 1024 ? 'gzip' : undefined);
    expect(JSON.parse(text).roundId).toBeGreaterThanOrEqual(live.roundId);
  });

  it('serves every square\'s EV for a stake on the live round (/live/ev), the ORE at the production cost or the caller\'s price', async () => {
    const res = await get(`${base}/api/v1/live/ev?stakeLamports=250000000&k=3`, apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('60');
    const ev = (await res.json()) as { squares: { square: number; deployedLamports: number; evLamports: number; evPerSol: number; split: boolean | null }[]; best: number[]; payoutRule: 'returns' | 'parimutuel'; oreReward: number; motherlodePool: number | null; orePriceLamports: number; orePriceSource: string; stakeLamports: number };
    openapi('LiveEv', ev);
    // The devnet's live rounds are 952-byte `returns` rounds with a Treasury: a production cost, a pool, a distribution mask.
    expect(ev).toMatchObject({ stakeLamports: 250_000_000, payoutRule: 'returns', orePriceSource: 'productionCost' });
    expect(ev.motherlodePool).not.toBeNull();
    expect(ev.squares.filter((s) => s.split === false)).toHaveLength(10);
    // The program's checkpoint arithmetic (checkpoint.rs at 70763fc), written here: SOL back over
    // the 25 winners, the prize floored when split or drawn by stake when solo, the pool one round in 500.
    const x = 250_000_000n;
    const expected = ev.squares.map((s) => {
      const t = BigInt(s.deployedLamports) + x;
      const admin = t / 100n > 1n ? t / 100n : 1n;
      const protocol = (t - admin) / 10n > 1n ? (t - admin) / 10n : 1n;
      const sol = (Number((x * (t - admin)) / t) + 24 * Number((x * (t - admin - protocol)) / t)) / 25;
      const prize = s.split ? Number((BigInt(ev.oreReward) * x) / t) : (ev.oreReward * 250_000_000) / Number(t);
      const ore = (prize + Number((BigInt(ev.motherlodePool ?? 0) * x) / t) / 500) / 25;
      return { square: s.square, evLamports: sol - 250_000_000 + (ore * ev.orePriceLamports) / 1e11 };
    });
    ev.squares.forEach((s, i) => expect(s.evLamports).toBeCloseTo(expected[i]!.evLamports, 2));
    const ranked = [...expected].sort((a, b) => b.evLamports - a.evLamports || a.square - b.square);
    expect(ev.best).toEqual(ranked.slice(0, 3).map((e) => e.square));
    const priced = (await (await get(`${base}/api/v1/live/ev?orePriceLamports=0`, apiKey)).json()) as typeof ev;
    expect(priced).toMatchObject({ stakeLamports: 100_000_000, orePriceLamports: 0, orePriceSource: 'caller' });
    for (const query of ['stakeLamports=0', 'stakeLamports=-5', 'stakeLamports=1.5', 'stakeLamports=abc', 'orePriceLamports=-1', 'k=26', 'k=0']) {
      const bad = await get(`${base}/api/v1/live/ev?${query}`, apiKey);
      expect([query, bad.status]).toEqual([query, 400]);
      const problem = (await bad.json()) as { code: string; errors: { path: string }[] };
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors[0]!.path).toBe(`/query/${query.split('=')[0]}`);
    }
    expect((await get(`${base}/api/v1/live/ev`)).status).toBe(401);
  });

  it('serves /stats whose per-square hits sum to the non-voided rounds', async () => {
    const stats = (await (await get(`${base}/api/v1/stats`, apiKey)).json()) as {
      roundsIndexed: number;
      perGrid: { hits: number }[];
      chiSquared: { sampleSize: number; degreesOfFreedom: number };
    };
    openapi('Stats', stats);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM indexer.rounds WHERE winning_square IS NOT NULL');
    expect(stats.perGrid).toHaveLength(25);
    expect(stats.chiSquared.degreesOfFreedom).toBe(24);
    expect(stats.perGrid.reduce((n, g) => n + g.hits, 0)).toBe(stats.chiSquared.sampleSize);
    expect(stats.chiSquared.sampleSize).toBeLessThanOrEqual(rows[0].n);
  });

  it('lists rounds newest first and validates limit', async () => {
    const body = (await (await get(`${base}/api/v1/rounds?limit=5`, apiKey)).json()) as { count: number; rounds: { id: number }[] };
    expect(body.count).toBe(5);
    openapi('RoundList', body);
    const ids = body.rounds.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    for (const bad of ['0', '10001', 'abc', '2.5']) {
      const res = await get(`${base}/api/v1/rounds?limit=${bad}`, apiKey);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_request', errors: [{ path: '/query/limit' }] });
    }
  });

  it('serves one round with its neighbours, null at the first, and 404 for an unknown id', async () => {
    const first = (await (await get(`${base}/api/v1/rounds/1`, apiKey)).json()) as { id: number; prevId: number | null; nextId: number | null };
    expect(first).toMatchObject({ id: 1, prevId: null, nextId: 2 });
    openapi('RoundWithNeighbours', first);
    const missing = await get(`${base}/api/v1/rounds/99999999`, apiKey);
    expect(missing.status).toBe(404);
    const problem = await missing.json();
    openapi('Problem', problem);
    expect(problem).toMatchObject({ code: 'round_not_found' });
    expect((await get(`${base}/api/v1/rounds/-1`, apiKey)).status).toBe(400);
  });

  it('answers 413 for a body over 64 KiB and 404 for unknown paths, as problem+json', async () => {
    const big = await fetch(`${base}/api/v1/rounds`, { method: 'POST', headers: { 'content-type': 'application/json', Authorization: `Bearer ${apiKey}` }, body: JSON.stringify({ x: 'a'.repeat(70_000) }) });
    expect(big.status).toBe(413);
    expect((await get(`${base}/api/v1/nope`, apiKey)).status).toBe(404);
  });
});

describe('grid and dump', () => {
  it('answers /grid/{n} for 0..24 with a series that agrees with /rounds, and 400 otherwise', async () => {
    const grid = (await (await get(`${base}/api/v1/grid/7?limit=20`, apiKey)).json()) as {
      square: number;
      row: number;
      column: number;
      series: number[];
      seriesToRoundId: number;
      hits: number;
      rounds: number;
    };
    expect(grid).toMatchObject({ square: 7, row: 1, column: 2 });
    openapi('Grid', grid);
    expect(grid.series).toHaveLength(20);
    const rounds = (await (await get(`${base}/api/v1/rounds?limit=60`, apiKey)).json()) as { rounds: { id: number; winningSquare: number | null }[] };
    const settled = rounds.rounds.filter((r) => r.winningSquare !== null && r.id <= grid.seriesToRoundId).slice(0, 20).reverse();
    expect(grid.series).toEqual(settled.map((r) => (r.winningSquare === 7 ? 1 : 0)));
    for (const bad of ['25', '-1', 'x', '1.5']) {
      const res = await get(`${base}/api/v1/grid/${bad}`, apiKey);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/0 to 24/);
    }
  });

  it('walks /dump pages visiting every stored round exactly once', async () => {
    const to = (await pool.query('SELECT max(id)::int AS m FROM indexer.rounds')).rows[0].m as number;
    const seen: number[] = [];
    let from: number | null = 1;
    while (from !== null) {
      const page = (await (await get(`${base}/api/v1/dump?from=${from}&to=${to}&limit=7`, apiKey)).json()) as {
        count: number;
        hasMore: boolean;
        nextFrom: number | null;
        rounds: { id: number }[];
      };
      expect(page.count).toBe(page.rounds.length);
      openapi('DumpPage', page);
      seen.push(...page.rounds.map((r) => r.id));
      from = page.nextFrom;
      expect(page.hasMore).toBe(from !== null);
    }
    const stored = (await pool.query('SELECT id FROM indexer.rounds WHERE id <= $1 ORDER BY id', [to])).rows.map((r) => r.id as number);
    expect(seen).toEqual(stored);
    expect((await get(`${base}/api/v1/dump?from=9&to=3`, apiKey)).status).toBe(400);
  });

  it('streams the same range as NDJSON', async () => {
    const res = await get(`${base}/api/v1/dump?from=1&to=30`, apiKey, { Accept: 'application/x-ndjson' });
    expect(res.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { id: number });
    expect(lines.map((r) => r.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});

describe('snapshot stream', () => {
  /** Reads SSE events from a fetch response until `count` snapshots have arrived. */
  async function readEvents(url: string, count: number): Promise<{ id: string; data: { roundId: number } }[]> {
    const controller = new AbortController();
    const res = await fetch(url, { headers: { Authorization: `Bearer ${apiKey}` }, signal: controller.signal });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const events: { id: string; data: { roundId: number } }[] = [];
    let text = '';
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString();
      let end;
      while (events.length < count && (end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const fields = Object.fromEntries(block.split('\n').filter((l) => !l.startsWith(':')).map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]));
        if (fields['event'] === 'snapshot') events.push({ id: fields['id']!, data: JSON.parse(fields['data']!) });
      }
    }
    controller.abort();
    return events;
  }

  it('sends the current state first, then snapshots as rounds advance, and the current state again on reconnect', async () => {
    const first = await readEvents(`${base}/api/v1/stream`, 1);
    expect(first[0]!.id).toMatch(/^\d+-\d+$/);
    const later = await readEvents(`${base}/api/v1/stream`, 30);
    expect(later.length).toBe(30);
    expect(later[later.length - 1]!.data.roundId).toBeGreaterThan(later[0]!.data.roundId);
    const again = await readEvents(`${second}/api/v1/stream`, 1);
    expect(again[0]!.data.roundId).toBeGreaterThanOrEqual(later[later.length - 1]!.data.roundId);
  });
});

describe('without Redis', () => {
  it('resolves keys from PostgreSQL and applies the same limits in process, and says so in /readyz', async () => {
    const opsPort = await freePort();
    const noRedis = await startGateway({ REDIS_URL: 'redis://127.0.0.1:1', OPS_PORT: String(opsPort) });
    const key = (await gridlab('admin', 'grant', '--owner', 'Cuieo4W1LJ4nV6PKRgdbpMFmTvDVTyyVwhBxfg2U85bD', '--days', '1'))['apiKey'] as string;
    const first = await get(`${noRedis}/api/v1/rounds?limit=1`, key);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-remaining')).toBe('59');
    expect((await get(`${noRedis}/api/v1/rounds?limit=1`, `grid_${'2'.repeat(43)}`)).status).toBe(401);
    let ok = 1;
    let limited: Response | undefined;
    const started = Date.now();
    for (let i = 0; i < 400 && limited === undefined; i++) {
      const res = await get(`${noRedis}/api/v1/live`, key);
      if (res.status === 429) limited = res;
      else if (res.status === 200) ok++;
    }
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(ok).toBeLessThanOrEqual(60 + Math.ceil(((Date.now() - started) / 1000) * 5));
    expect(limited?.headers.get('retry-after')).toBe('1');
    // Degraded but ready: the gateway fails soft without Redis. The public port
    // names the failing check but not its error text; /metrics is on the ops port only.
    const ready = await fetch(`${noRedis}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, status: 'degraded', checks: { postgres: { ok: true }, nats: { ok: true }, redis: { ok: false }, live: { ok: true } } });
    expect((await fetch(`${noRedis}/metrics`)).status).toBe(404);
    const detailed = (await (await fetch(`http://127.0.0.1:${opsPort}/readyz`)).json()) as { status: string; checks: { redis: { ok: boolean; error?: string } } };
    expect(detailed.status).toBe('degraded');
    expect(detailed.checks.redis.error).toEqual(expect.any(String));
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    expect(metrics).toMatch(/gateway_rate_limit_fallback\{[^}]*\} 1/);
  });
});

describe('without Redis, requests sent together', () => {
  it("get a key's burst of 60 (plus what refills meanwhile) from the in-process bucket, then 429 with Retry-After 1", async () => {
    const noRedis = await startGateway({ REDIS_URL: 'redis://127.0.0.1:1' });
    const key = (await gridlab('admin', 'grant', '--owner', 'HwLkWxM4Xq7S1BZbXRg1qMdtHDqB8bzv6SuxmkXvfgtB', '--days', '1'))['apiKey'] as string;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 90 }, async () => {
        const res = await get(`${noRedis}/api/v1/live`, key);
        await res.arrayBuffer();
        return res;
      }),
    );
    const refills = Math.floor(((Date.now() - started) / 1000) * 5);
    expect(answers.filter((r) => r.status !== 200 && r.status !== 429).map((r) => r.status)).toEqual([]);
    const ok = answers.filter((r) => r.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(ok).toBeLessThanOrEqual(60 + refills);
    for (const r of answers.filter((a) => a.status === 429)) expect([r.headers.get('retry-after'), r.headers.get('ratelimit-remaining')]).toEqual(['1', '0']);
  });
});

describe('key sharing', () => {
  it('signals a key used from more than 3 client addresses, trusting X-Forwarded-For only from configured proxies', async () => {
    const behindProxy = await startGateway({ TRUSTED_PROXIES: '127.0.0.1' });
    const issued = await gridlab('admin', 'grant', '--owner', '7xLk17EQQ5KLDLDe44wCmupJKJjTGd8hs3eSVVhCx932', '--days', '1');
    const bus = await connectBus({ servers: ns.natsUrl, name: 'test', logger: createLogger({ service: 't', silent: true }) });
    const facts: KeyShared[] = [];
    const sub = bus.subscribe(natsNames(ns.natsPrefix).subjects.keyShared, {
      callback: (_e, m) => {
        facts.push(decodeMessage(validateKeyShared, m.data));
      },
    });
    await bus.flush();
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect((await get(`${behindProxy}/api/v1/rounds?limit=1`, issued['apiKey'] as string, { 'X-Forwarded-For': ip })).status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(facts).toHaveLength(0); // three addresses: within the limit
    // The direct gateway does not trust the header: this request counts as 127.0.0.1, a
    // fourth address (had the header been believed, it would have been a known one).
    const direct = await get(`${base}/api/v1/rounds?limit=1`, issued['apiKey'] as string, { 'X-Forwarded-For': '198.51.100.1' });
    expect(direct.status).toBe(200);
    const deadline = Date.now() + 5000;
    while (facts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(facts).toEqual([expect.objectContaining({ subscriberId: issued['subscriberId'], distinctAddresses: 4, policy: 'warn', windowSeconds: 300 })]);
    expect(JSON.stringify(facts)).not.toContain(issued['apiKey'] as string);
    sub.unsubscribe();
    await bus.drain();
  });
});

describe('openapi document', () => {
  it('is served publicly as JSON and lists every endpoint of the contract', async () => {
    const res = await fetch(`${base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-limit')).toBe('100');
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    for (const path of ['/api/v1/live', '/api/v1/live/ev', '/api/v1/stream', '/api/v1/stats', '/api/v1/rounds', '/api/v1/rounds/{id}', '/api/v1/grid/{n}', '/api/v1/dump', '/api/v1/pricing', '/api/v1/subscribe', '/api/v1/reissue', '/api/v1/events', '/api/v1/events/stream', '/api/v1/lab/strategies', '/api/v1/lab/strategies/{id}', '/api/v1/lab/strategies/{id}/forward', '/api/v1/lab/strategies/{id}/restore', '/api/v1/lab/backtest', '/api/v1/lab/analytics', '/api/v1/lab/leaderboard', '/api/v1/lab/leaderboard/{id}']) {
      expect(doc.paths[path]).toBeDefined();
    }
  });
});

describe('rate limits', () => {
  it('shares one bucket across both replicas: 60 requests, then 429 with Retry-After', async () => {
    const key = (await gridlab('admin', 'grant', '--owner', 'DRpbCBMxVnDK7maPM5tGv6MvB3v1sRMC86PZ8okm21hy', '--days', '1'))['apiKey'] as string;
    // Requests until the first 429, alternating replicas. The bucket refills 5 tokens a
    // second, so on a slow machine a few more than the burst may pass: exactly
    // 60 + the refills of the elapsed time.
    let ok = 0;
    let limited: Response | undefined;
    const started = Date.now();
    for (let i = 0; i < 400 && limited === undefined; i++) {
      const res = await get(`${i % 2 === 0 ? base : second}/api/v1/rounds?limit=1`, key);
      if (res.status === 429) limited = res;
      else if (res.status === 200) ok++;
    }
    const refills = Math.ceil(((Date.now() - started) / 1000) * 5);
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(ok).toBeLessThanOrEqual(60 + refills);
    expect(limited?.headers.get('retry-after')).toBe('1');
    expect(limited?.headers.get('ratelimit-remaining')).toBe('0');
    expect(await limited?.json()).toMatchObject({ status: 429, code: 'rate_limited' });
  });

  it('shares one bucket across both replicas for requests sent together: 60 (plus what refills meanwhile), the rest 429', async () => {
    // A Redis answer later than REDIS_TIMEOUT_MS (50 ms) makes a replica fall back to a bucket
    // of its own, by design; a burst on a loaded two-core machine can take that long, so these
    // two replicas wait longer: what is tested is the shared bucket.
    const replicas = await Promise.all([startGateway({ REDIS_TIMEOUT_MS: '2000' }), startGateway({ REDIS_TIMEOUT_MS: '2000' })]);
    const key = (await gridlab('admin', 'grant', '--owner', '8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR', '--days', '1'))['apiKey'] as string;
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const res = await get(`${replicas[i % 2]}/api/v1/rounds?limit=1`, key);
        return { status: res.status, retryAfter: res.headers.get('retry-after'), remaining: res.headers.get('ratelimit-remaining'), body: (await res.json()) as { code?: string } };
      }),
    );
    const refills = Math.floor(((Date.now() - started) / 1000) * 5);
    expect(answers.filter((a) => a.status !== 200 && a.status !== 429).map((a) => a.status)).toEqual([]);
    const ok = answers.filter((a) => a.status === 200).length;
    expect(ok).toBeGreaterThanOrEqual(60);
    expect(ok).toBeLessThanOrEqual(60 + refills);
    for (const a of answers.filter((x) => x.status === 429)) expect([a.retryAfter, a.remaining, a.body.code]).toEqual(['1', '0', 'rate_limited']);
  });
});

describe('a partly known round', () => {
  it('is served with null where the chain does not prove a figure, by id and in the dump, as the contract declares', async () => {
    // Round 0: below every round the devnet plays, so no other test sees it.
    const [round] = await new RoundRepository(pool).getRounds({ fromId: 1, toId: 1 });
    const w = round!.winningSquare ?? 0;
    const partial = {
      ...round!,
      id: 0,
      source: 'transactions_partial' as const,
      deployed: round!.deployed.map((v, s) => (s === w ? v : null)),
      count: round!.count.map((v, s) => (s === w ? v : null)),
      totalMiners: null,
    };
    await new RoundRepository(pool).insertMany([partial]);
    const byId = (await (await get(`${base}/api/v1/rounds/0`, apiKey)).json()) as Record<string, unknown>;
    openapi('RoundWithNeighbours', byId);
    expect(byId).toEqual({ ...partial, prevId: null, nextId: 1 });
    const page = (await (await get(`${base}/api/v1/dump?from=0&to=0`, apiKey)).json()) as { rounds: unknown[] };
    openapi('DumpPage', page);
    expect(page.rounds).toEqual([partial]);
    const ndjson = await (await get(`${base}/api/v1/dump?from=0&to=0`, apiKey, { Accept: 'application/x-ndjson' })).text();
    expect(ndjson).toBe(`${JSON.stringify(partial)}\n`);
  });
});
