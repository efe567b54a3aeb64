/**
 * Least privilege end to end: the whole suite, each service with only its own
 * credentials — its PostgreSQL role (k8s/engines/postgres-roles.sql), its NATS user on a
 * server configured with exactly the `config.merge` of k8s/engines/nats-values.yaml, its
 * Redis ACL user from k8s/engines/redis-values.yaml — serves rounds, live snapshots,
 * pricing, backtests, analytics, strategies, the event log and alert rules (a webhook
 * posted to a receiver on this machine). Then each user tries what
 * it must not: publish another service's facts, read the replies to another's commands,
 * delete a stream, touch another's Redis keys; the servers refuse every one.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPrivateKey, randomBytes, sign as signEd25519 } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createTestDatabase, freePort, runCli, startService, waitUntil, WORKSPACE_ROOT, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import pg from 'pg';
import { parse } from 'yaml';

const SERVICES = ['indexer', 'billing', 'event-log', 'lab-forward', 'lab-backtest', 'notifier', 'api-gateway'] as const;
type Service = (typeof SERVICES)[number];
const REDIS_USERS: readonly Service[] = ['api-gateway', 'billing', 'lab-backtest'];
const SECRET = 'least-privilege-secret-0123456789abcdef';
const HISTORY = 30;
const DSL = { base_strategy: 'cold', params: { bet_size_lamports: 1_000_000, num_squares: 5 } };
const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const tag = `lp${randomBytes(4).toString('hex')}`;
const rolePrefix = `${tag}_`;
const redisPrefix = `${tag}:`;
// A letter first: nats-server reads an environment variable's value as a config value, and a
// password starting with a digit would parse as a (broken) number (k8s/README.md does the same).
// Each service's PostgreSQL role has a password, as in the cluster (loopback trusts only postgres).
const pgPasswords = Object.fromEntries(SERVICES.map((s) => [s, randomBytes(12).toString('hex')])) as Record<Service, string>;
const natsPasswords = Object.fromEntries(SERVICES.map((s) => [s, `p${randomBytes(12).toString('hex')}`])) as Record<Service, string>;
const redisPasswords = Object.fromEntries(REDIS_USERS.map((s) => [s, randomBytes(12).toString('hex')])) as Record<Service, string>;
const redisUser = (service: Service): string => `${tag}-${service}`;
const readYaml = (file: string): Record<string, any> => parse(readFileSync(join(WORKSPACE_ROOT, 'k8s/engines', file), 'utf8')) as Record<string, any>;

let work: string;
let db: TestDatabase;
let natsServer: ChildProcess;
let natsUrl: string;
let admin: Redis;
let devnet: Devnet;
const running: ServiceProcess[] = [];
let gatewayUrl: string;
const opsPorts = {} as Record<Service, number>;
let apiKey: string;
let keypairFile: string;
/** A subscriber's webhook receiver: the type of each body it was posted. */
let receiver: Server;
const received: string[] = [];

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { code, stdout, stderr } = await runCli(args, { GRIDLAB_API_URL: gatewayUrl, SOLANA_RPC_URL: devnet.rpcUrl, TOKEN_MINT: devnet.tokenMint });
  if (code !== 0) throw new Error(`gridlab ${args.join(' ')} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** The NATS server's configuration: the chart's `config.merge` (`<< x >>` is x, unquoted, as the chart renders it). */
function natsConfig(port: number, storeDir: string): string {
  const merge = readYaml('nats-values.yaml')['config'].merge as Record<string, any>;
  const config = { ...merge, host: '127.0.0.1', port, jetstream: { ...merge['jetstream'], store_dir: storeDir } };
  return JSON.stringify(config, null, 2).replace(/"<< (.+?) >>"/g, '$1');
}

function urlAs(service: Service): string {
  const url = new URL(db.url);
  url.username = rolePrefix + service.replace(/-/g, '_');
  url.password = pgPasswords[service];
  return url.toString();
}

function redisUrlOf(service: Service): string {
  const url = new URL(REDIS_URL);
  url.username = redisUser(service);
  url.password = redisPasswords[service];
  return url.toString();
}

function serviceEnv(service: Service): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: urlAs(service),
    NATS_URL: natsUrl,
    NATS_USER: service,
    NATS_PASSWORD: natsPasswords[service],
    NATS_PREFIX: '',
    REDIS_PREFIX: redisPrefix,
    ...(REDIS_USERS.includes(service) ? { REDIS_URL: redisUrlOf(service) } : {}),
    ...(service === 'api-gateway' || service === 'billing' ? { API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET } : {}),
    OPS_PORT: String(opsPorts[service]),
    LOG_LEVEL: 'warn',
    SOLANA_RPC_URL: devnet.rpcUrl,
    SOLANA_WS_URL: devnet.wsUrl,
    SLOT_SECONDS: '0.04',
    POLL_INTERVAL_MS: '200',
    CATCH_UP_INTERVAL_MS: '200',
    LAB_WORKERS: '1',
    TREASURY_ADDRESS: devnet.treasury,
    TOKEN_MINT: devnet.tokenMint,
    // The receiver is on this machine, over plain HTTP: the notifier's address policy is
    // not what this test is about (libs/webhooks and its tests are).
    ...(service === 'notifier' ? { NOTIFIER_ALLOW_HTTP: 'true', NOTIFIER_ALLOW_PRIVATE: 'true', NOTIFIER_TARGET_PORTS: String((receiver.address() as AddressInfo).port) } : {}),
  };
}

async function api<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; headers: Headers }> {
  const res = await fetch(`${gatewayUrl}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json', ...init.headers } });
  return { status: res.status, body: (await res.json()) as T, headers: res.headers };
}

/** A connection as `service`, collecting the permission errors the server reports to it. */
async function connectAs(service: Service): Promise<{ nc: NatsConnection; denials: string[] }> {
  const nc = await connect({ servers: natsUrl, user: service, pass: natsPasswords[service], inboxPrefix: `_INBOX_${service}` });
  const denials: string[] = [];
  void (async () => {
    for await (const s of nc.status()) if (s.type === 'error') denials.push(String(s.error.message));
  })();
  return { nc, denials };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'gridlab-least-privilege-'));
  db = await createTestDatabase();
  const superuser = new pg.Client({ connectionString: db.url });
  await superuser.connect();
  await superuser.query(`SET gridlab.role_prefix = '${rolePrefix}'`);
  await superuser.query(readFileSync(join(WORKSPACE_ROOT, 'k8s/engines/postgres-roles.sql'), 'utf8'));
  for (const s of SERVICES) await superuser.query(`ALTER ROLE ${rolePrefix}${s.replace(/-/g, '_')} PASSWORD '${pgPasswords[s]}'`);
  await superuser.end();

  // NATS with the chart's authorization block; the passwords come from the environment, as in the pod.
  const natsPort = await freePort();
  natsUrl = `nats://127.0.0.1:${natsPort}`;
  const confFile = join(work, 'nats.conf');
  writeFileSync(confFile, natsConfig(natsPort, join(work, 'jetstream')));
  const natsEnv = Object.fromEntries(SERVICES.map((s) => [`NATS_PASSWORD_${s.toUpperCase().replace(/-/g, '_')}`, natsPasswords[s]]));
  let natsLog = '';
  natsServer = spawn(process.env['NATS_SERVER_BIN'] ?? '/usr/sbin/nats-server', ['-c', confFile], { env: { ...process.env, ...natsEnv }, stdio: ['ignore', 'ignore', 'pipe'] });
  natsServer.stderr!.on('data', (chunk: Buffer) => (natsLog = (natsLog + chunk.toString()).slice(-4000)));
  await waitUntil('nats-server with the chart configuration', async () => (await connectAs('indexer')).nc.close().then(() => true), (ok) => ok, { timeoutMs: 20_000, context: () => natsLog });

  // The chart's ACL users, under this run's names and key prefix.
  admin = new Redis(REDIS_URL);
  const users = readYaml('redis-values.yaml')['auth'].acl.users as { username: Service; enabled: string; keys: string; channels: string; commands: string }[];
  expect(users.map((u) => u.username).sort()).toEqual([...REDIS_USERS].sort());
  for (const u of users) {
    const rules = [u.enabled, `>${redisPasswords[u.username]}`, ...u.keys.replace(/gridlab:/g, redisPrefix).split(' '), u.channels.replace(/gridlab:/g, redisPrefix), ...u.commands.split(' ')];
    await admin.call('ACL', 'SETUSER', redisUser(u.username), 'reset', ...rules);
  }

  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push((JSON.parse(body) as { type: string }).type);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 40, roundSlots: 15, intermissionSlots: 4, historyRounds: HISTORY, seed: 15 });
  for (const s of SERVICES) opsPorts[s] = await freePort();
  const gatewayPort = await freePort();
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  // Owners first: each migrates its schema and grants its readers (who may only start after).
  for (const s of SERVICES) {
    const env = { ...serviceEnv(s), PUBLIC_ORIGIN: gatewayUrl, ...(s === 'api-gateway' ? { PORT: String(gatewayPort), HOST: '127.0.0.1' } : {}) };
    running.push(await startService(`services/${s}/src/main.ts`, env, async () => (await fetch(`http://127.0.0.1:${opsPorts[s]}/readyz`)).ok, 60_000));
  }
  // A real subscription: a token transfer on the devnet, verified by billing (which publishes the subscription fact).
  const wallet = Keypair.generate();
  keypairFile = join(work, 'wallet.json');
  writeFileSync(keypairFile, JSON.stringify(Array.from(wallet.secretKey)));
  await cli('devnet', 'fund', '--owner', wallet.publicKey.toBase58(), '--tokens', '1', '--sol', '1');
  apiKey = (await cli('subscribe', '--keypair', keypairFile))['apiKey'] as string;
}, 240_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  await devnet?.stop();
  if (receiver !== undefined) await new Promise((r) => receiver.close(r));
  if (natsServer !== undefined && natsServer.exitCode === null) {
    const exited = new Promise((r) => natsServer.once('exit', r));
    natsServer.kill('SIGKILL');
    await exited;
  }
  if (admin !== undefined) {
    for (const s of REDIS_USERS) await admin.call('ACL', 'DELUSER', redisUser(s));
    const keys = await admin.keys(`${redisPrefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
  }
  await db?.drop();
  const pgAdmin = new pg.Client({ connectionString: db.url.replace(/\/[^/]+$/, '/postgres') });
  await pgAdmin.connect();
  for (const s of SERVICES) await pgAdmin.query(`DROP ROLE IF EXISTS ${rolePrefix}${s.replace(/-/g, '_')}`);
  await pgAdmin.end();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

describe('least privilege: each service with only its own credentials', () => {
  it('serves the API end to end', async () => {
    // Indexer → PostgreSQL (its role) → the gateway's read model; indexer → NATS → the gateway's live feed.
    await waitUntil('the history indexed and served', () => api<{ rounds?: { id: number }[] }>('/rounds?limit=1'), (r) => (r.body.rounds?.[0]?.id ?? 0) >= HISTORY);
    const settled = devnet.currentRoundId() - 1;
    await waitUntil('a current /live', () => api<{ roundId: number; stale: boolean }>('/live'), (r) => r.status === 200 && r.body.roundId >= settled && !r.body.stale);
    // Gateway → billing (request/reply; the reply through billing's allow_responses).
    expect((await api<{ tiers?: unknown }>('/pricing')).status).toBe(200);
    // Gateway → lab-backtest (chunked replies), twice: the second analytics from lab-backtest's Redis cache.
    const backtest = await api<{ totalRounds: number }>('/lab/backtest', { method: 'POST', body: JSON.stringify({ dsl: DSL }) });
    expect(backtest.status).toBe(200);
    expect((await api('/lab/analytics', { method: 'POST', body: JSON.stringify({ dsl: DSL }) })).status).toBe(200);
    expect(await admin.keys(`${redisPrefix}*lab:analytics:*`)).not.toHaveLength(0);
    // Gateway → lab-forward; lab-forward's durables follow the rounds.
    const created = await api<{ strategy: { id: string } }>('/lab/strategies', { method: 'POST', body: JSON.stringify({ name: 'least privilege', dsl: DSL }) });
    expect(created.status).toBe(201);
    // Gateway → notifier (its commands, its schema under its role), and notifier → lab-forward
    // (whether the strategy a rule names is the caller's).
    const signal = await api<{ alert: { kind: string } }>('/alerts', { method: 'POST', body: JSON.stringify({ kind: 'strategy_signal', strategyId: created.body.strategy.id }) });
    expect({ status: signal.status, kind: signal.body.alert.kind }).toEqual({ status: 201, kind: 'strategy_signal' });
    // Notifier → a subscriber's endpoint: a test ping, delivered and logged.
    const hooked = await api<{ alert: { id: string } }>('/alerts', { method: 'POST', body: JSON.stringify({ kind: 'motherlode', minOre: 1000, target: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` } }) });
    expect(hooked.status).toBe(201);
    expect((await api(`/alerts/${hooked.body.alert.id}/test`, { method: 'POST' })).body).toMatchObject({ delivered: true, status: 204 });
    expect(received).toEqual(['alert.test']);
    expect((await api<{ firings: { state: string }[] }>(`/alerts/${hooked.body.alert.id}/deliveries`)).body.firings.map((f) => f.state)).toEqual(['delivered']);
    await waitUntil('forward settlement', () => api<{ roundsObserved?: number; forward?: { roundsObserved: number } }>(`/lab/strategies/${created.body.strategy.id}/forward`), (r) => r.status === 200 && ((r.body.forward?.roundsObserved ?? r.body.roundsObserved ?? 0) > 0));
    // Billing's fact relay → BILLING → event-log: the subscription is logged.
    await waitUntil('the subscription event', () => api<{ events: { kind: string }[] }>('/events?since=0&limit=1000'), (r) => r.status === 200 && r.body.events.some((e) => e.kind === 'subscription'));
    // A reissue: billing answers only the gateway, writes the tombstone under its Redis user and announces the revocation.
    const previous = apiKey;
    apiKey = (await cli('reissue', '--keypair', keypairFile))['apiKey'] as string;
    expect((await fetch(`${gatewayUrl}/api/v1/live`, { headers: { Authorization: `Bearer ${previous}` } })).status).toBe(401);
    expect((await api('/live')).status).toBe(200);
    // A dashboard session: the gateway reads the subscriber's session epoch under its role;
    // sign-out is billing's to record (its role writes the epoch, its NATS user announces it).
    const dashboard = (method: string, cookie?: string, body?: unknown) =>
      fetch(`${gatewayUrl}/api/live/session`, {
        method,
        headers: { 'Sec-Fetch-Site': 'same-origin', ...(cookie === undefined ? {} : { Cookie: cookie }), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const signedIn = await dashboard('POST', undefined, { apiKey });
    expect(signedIn.status).toBe(201);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect((await dashboard('GET', cookie)).status).toBe(200);
    expect((await dashboard('DELETE', cookie)).status).toBe(204);
    expect((await dashboard('GET', cookie)).status).toBe(401);
    // Sign-In With Solana: the message's nonce is recorded in PostgreSQL under the gateway's role (insert only).
    const owner = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(readFileSync(keypairFile, 'utf8')) as number[]));
    const challenge = (await (await fetch(`${gatewayUrl}/api/live/session/challenge`, { method: 'POST', headers: { Origin: gatewayUrl, 'Content-Type': 'application/json' }, body: JSON.stringify({ wallet: owner.publicKey.toBase58() }) })).json()) as { message: string };
    const seed = Buffer.from(owner.secretKey.subarray(0, 32));
    const signer = createPrivateKey({ key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8' });
    const signatureBase64 = signEd25519(null, Buffer.from(challenge.message), signer).toString('base64');
    expect((await dashboard('POST', undefined, { wallet: owner.publicKey.toBase58(), message: challenge.message, signatureBase64 })).status).toBe(201);
    const ledger = new pg.Client({ connectionString: db.url });
    await ledger.connect();
    try {
      expect((await ledger.query<{ n: number }>('SELECT count(*)::int AS n FROM billing.siws_used_nonces')).rows[0]!.n).toBe(1);
    } finally {
      await ledger.end();
    }
    expect(await admin.keys(`${redisPrefix}siws:*`)).toHaveLength(0);
    // The gateway's rate limits ran in Redis under its ACL user (no fallback to in-process limits).
    expect(await admin.keys(`${redisPrefix}bucket:*`)).not.toHaveLength(0);
    const metrics = await (await fetch(`http://127.0.0.1:${opsPorts['api-gateway']}/metrics`)).text();
    expect(metrics).toMatch(/^gateway_rate_limit_fallback(\{[^}]*\})? 0$/m);
  }, 180_000);

  it('lets no service publish another service\'s facts or serve its commands', async () => {
    const attempts: [Service, string][] = [
      ['api-gateway', 'billing.subscription.changed'],
      ['event-log', 'billing.tier.changed'],
      ['lab-forward', 'access.key.revoked'],
      ['api-gateway', 'grid.round.settled'],
      ['lab-backtest', 'grid.live.updated'],
      ['indexer', 'events.event.appended'],
      ['notifier', 'grid.round.settled'],
    ];
    for (const [service, subject] of attempts) {
      const { nc, denials } = await connectAs(service);
      nc.publish(subject, '{}');
      await nc.flush();
      await waitUntil(`${service} refused publishing ${subject}`, async () => denials, (d) => d.some((m) => m.includes(subject)), { timeoutMs: 5000, everyMs: 50 });
      await nc.close();
    }
    // Nobody but billing answers billing's commands (it would see the subscriber's transfer and hand out keys).
    const { nc, denials } = await connectAs('lab-backtest');
    nc.subscribe('billing.subscription.complete');
    await nc.flush();
    await waitUntil('lab-backtest refused serving billing commands', async () => denials, (d) => d.some((m) => m.includes('billing.subscription.complete')), { timeoutMs: 5000, everyMs: 50 });
    await nc.close();
    // Nor the notifier's (an alert rule's target and signing secret travel in them).
    const other = await connectAs('lab-forward');
    other.nc.subscribe('alerts.rule.create');
    await other.nc.flush();
    await waitUntil('lab-forward refused serving alert commands', async () => other.denials, (d) => d.some((m) => m.includes('alerts.rule.create')), { timeoutMs: 5000, everyMs: 50 });
    await other.nc.close();
  });

  it('lets no service read the replies to another service\'s requests', async () => {
    for (const service of ['lab-backtest', 'lab-forward', 'event-log', 'indexer', 'notifier'] as const) {
      const { nc, denials } = await connectAs(service);
      const inboxes = ['_INBOX_api-gateway.>', '_INBOX.>'];
      for (const subject of inboxes) nc.subscribe(subject);
      await nc.flush();
      await waitUntil(`${service} refused reading the gateway's replies`, async () => denials, (d) => inboxes.every((s) => d.some((m) => m.includes(s))), { timeoutMs: 5000, everyMs: 50 });
      await nc.close();
    }
  });

  it('lets no service delete or purge a stream', async () => {
    // Each stream's messages, read as its owner (the indexer's ROUNDS, billing's BILLING).
    const held = async (): Promise<number[]> => {
      const counts: number[] = [];
      for (const [owner, stream] of [['indexer', 'ROUNDS'], ['billing', 'BILLING']] as const) {
        const { nc } = await connectAs(owner);
        counts.push((await (await jetstreamManager(nc)).streams.info(stream)).state.messages);
        await nc.close();
      }
      return counts;
    };
    const before = await held();
    expect(before.every((n) => n > 0)).toBe(true);
    for (const service of ['event-log', 'api-gateway', 'indexer'] as const) {
      const { nc } = await connectAs(service);
      const jsm = await jetstreamManager(nc);
      // Refused by the server for want of the permission (not, say, a missing stream or a timeout).
      await expect(jsm.streams.delete('ROUNDS')).rejects.toThrow(/permissions violation for publish to "\$JS\.API\.STREAM\.DELETE\.ROUNDS"/i);
      await expect(jsm.streams.purge('BILLING')).rejects.toThrow(/permissions violation for publish to "\$JS\.API\.STREAM\.PURGE\.BILLING"/i);
      await nc.close();
    }
    // Nothing was deleted or purged (the indexer may have added rounds meanwhile).
    const after = await held();
    expect(after[0]).toBeGreaterThanOrEqual(before[0]!);
    expect(after[1]).toBeGreaterThanOrEqual(before[1]!);
  });

  it("keeps each Redis user to its own commands and keys", async () => {
    const as = (service: Service): Redis => new Redis(redisUrlOf(service), { maxRetriesPerRequest: 0, enableReadyCheck: false });
    const denied = async (service: Service, ...command: [string, ...string[]]): Promise<void> => {
      const client = as(service);
      try {
        await expect(client.call(...command)).rejects.toThrow(/NOPERM/);
      } finally {
        client.disconnect();
      }
    };
    await denied('lab-backtest', 'GET', `${redisPrefix}auth:x`);
    await denied('billing', 'GET', `${redisPrefix}auth:x`); // tombstones are written, never read
    await denied('billing', 'SET', `${redisPrefix}bucket:x`, '1');
    await denied('api-gateway', 'GET', `${redisPrefix}lab:analytics:x`);
    await denied('api-gateway', 'FLUSHALL');
    await denied('api-gateway', 'PUBLISH', `${redisPrefix}revoked`, 'a'.repeat(64)); // only revokers announce
    await denied('billing', 'PUBLISH', `${redisPrefix}other`, 'x');
    await denied('api-gateway', 'KEYS', '*');
    await denied('lab-backtest', 'CONFIG', 'GET', 'requirepass');
  });
});
