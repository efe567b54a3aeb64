/**
 * The API users' commands, all through @gridlab/client, against the local suite (devnet,
 * indexer, gateway, Strategy Lab): keygen, live, stats, backtest, strategies list | create |
 * forward, as tables and as --json, and api (any operation by its operationId).
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, localSuiteEnv, runCli, startCli, startLocalSuite, startWebhookReceiver, testNamespace, waitUntil, type LocalSuite, type TestDatabase, type WebhookReceiver } from '@gridlab/testing';
import { Keypair } from '@solana/web3.js';
import { Webhook } from 'standardwebhooks';

const SECRET = 'cli-api-test-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const DSL = { base_strategy: 'cold', params: { bet_size_lamports: 10_000_000, num_squares: 5 } };

let db: TestDatabase;
const ns = testNamespace();
let dir: string;
let suite: LocalSuite | null = null;
const output = (): string => suite?.output() ?? '';
let env: NodeJS.ProcessEnv;
/** A subscriber's webhook receiver: what the notifier posted to it. */
let receiver: WebhookReceiver;

async function gridlab(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCli(args, env);
}
async function json(...args: string[]): Promise<Record<string, unknown>> {
  const r = await gridlab(...args, '--json');
  if (r.code !== 0) throw new Error(`gridlab ${args.join(' ')} exited ${r.code}: ${r.stderr}\n${output().slice(-3000)}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}
function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000): Promise<T> {
  return waitUntil(what, read, ok, { timeoutMs, everyMs: 500, context: output });
}

beforeAll(async () => {
  db = await createTestDatabase();
  dir = await mkdtemp(join(tmpdir(), 'gridlab-cli-api-'));
  receiver = await startWebhookReceiver();
  const local = await localSuiteEnv({
    services: ['indexer', 'api-gateway', 'lab-forward', 'lab-backtest', 'notifier'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir: dir,
    historyRounds: 60,
  });
  // The notifier may post to this test's receiver, on loopback over http (an operator's setting; refused by default).
  env = { ...local.env, GRIDLAB_API_URL: local.gatewayUrl, NOTIFIER_ALLOW_HTTP: 'true', NOTIFIER_ALLOW_PRIVATE: 'true', NOTIFIER_TARGET_PORTS: String(receiver.port) };
  suite = startLocalSuite(env);
  const granted = await runCli(['admin', 'grant', '--owner', OWNER, '--days', '1'], env);
  if (granted.code !== 0) throw new Error(granted.stderr);
  env['GRIDLAB_API_KEY'] = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
});

afterAll(async () => {
  await suite?.stop();
  await receiver.stop();
  await db.drop();
  await ns.cleanup();
  await rm(dir, { recursive: true, force: true });
});

describe('gridlab API commands', () => {
  it('keygen writes a private Solana keypair file and refuses to overwrite it', async () => {
    const file = join(dir, 'wallet.json');
    const made = await gridlab('keygen', '-o', file);
    expect(made.code).toBe(0);
    const { publicKey } = JSON.parse(made.stdout) as { publicKey: string };
    const bytes = JSON.parse(await readFile(file, 'utf8')) as number[];
    expect(Keypair.fromSecretKey(Uint8Array.from(bytes)).publicKey.toBase58()).toBe(publicKey);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const again = await gridlab('keygen', '-o', file);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists/);
  });

  it('live and stats print tables, and the API answers with --json', async () => {
    const stats = await until('the history to be indexed', () => json('stats'), (s) => (s['roundsIndexed'] as number) >= 60);
    const table = await gridlab('stats');
    expect(table.code).toBe(0);
    expect(table.stdout).toContain('rounds indexed');
    expect(table.stdout).toContain(String(stats['firstRoundId']));

    const live = await until('a live snapshot', () => json('live', '--once'), (l) => typeof l['roundId'] === 'number');
    const board = await gridlab('live', '--once');
    // The devnet's rounds last a few seconds and each CLI run starts a process: the board
    // shows the round the JSON named or a later one.
    const shown = Number(/^round (\d+) /m.exec(board.stdout)?.[1]);
    expect(shown).toBeGreaterThanOrEqual(live['roundId'] as number);
    expect(board.stdout.split('\n').filter((l) => /^\s*\d+:/.test(l))).toHaveLength(5);

    // --ev: each square's EV per SOL for the stake, the best squares, and what it assumes.
    const ev = await until('the live EV', () => json('live', '--once', '--ev', '--stake', '0.5', '--ore-price', '0.25'), (e) => typeof e['roundId'] === 'number');
    expect(ev).toMatchObject({ stakeLamports: 500_000_000, orePriceLamports: 250_000_000, orePriceSource: 'caller' });
    expect(ev['squares']).toHaveLength(25);
    const evTable = await gridlab('live', '--once', '--ev');
    expect(evTable.code).toBe(0);
    expect(evTable.stdout).toMatch(/stake 0\.1000 SOL a square/);
    expect(evTable.stdout.split('\n').filter((l) => /^\s*\d+[ s1] [+-]\d\.\d{4}/.test(l))).toHaveLength(5);
    expect(evTable.stdout).toMatch(/^best now: \d+ \(/m);
    const badStake = await gridlab('live', '--once', '--ev', '--stake', 'lots');
    expect([badStake.code, badStake.stderr]).toEqual([2, expect.stringContaining('--stake must be an amount of SOL')]);

    const missingKey = await runCli(['stats'], { ...env, GRIDLAB_API_KEY: '' });
    expect(missingKey.code).toBe(2);
  });

  it('backtests a DSL file over a window, and creates, lists and forward-tests a strategy', async () => {
    const dslFile = join(dir, 'cold.json');
    await writeFile(dslFile, JSON.stringify(DSL));
    const stats = await json('stats');
    const to = stats['lastRoundId'] as number;
    const from = to - 20;
    const backtest = await until('a backtest', () => json('backtest', dslFile, '--from', String(from), '--to', String(to)), () => true);
    expect((backtest['result'] as { totalRounds: number }).totalRounds).toBe(21);
    const table = await gridlab('backtest', dslFile, '--from', String(from), '--to', String(to));
    expect(table.stdout).toMatch(/rounds\s*│\s*21/);

    const created = await json('strategies', 'create', dslFile, '--name', 'cold five');
    const id = (created['strategy'] as { id: string }).id;
    expect(id).toMatch(/^stg_/);
    const list = await gridlab('strategies', 'list');
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('cold five');
    const forward = await until('a settled forward round', () => json('strategies', 'forward', id), (f) => (f['roundsSettled'] as number) >= 1);
    expect(forward['strategyId']).toBe(id);
    const forwardTable = await gridlab('strategies', 'forward', id);
    expect(forwardTable.stdout).toContain('rounds settled');
    const unknown = await gridlab('strategies', 'forward', 'stg_1111111111111111111111');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/404 strategy_not_found/);
  });

  it('api calls any operation by its operationId and prints its answer as JSON; api --list lists the operations', async () => {
    const listed = await gridlab('api', '--list', '--json');
    expect(JSON.parse(listed.stdout)).toContainEqual({ operationId: 'getRound', method: 'get', path: '/api/v1/rounds/{id}', access: 'paid', answers: 'application/json' });
    expect((await gridlab('api', '--list')).stdout).toMatch(/getRound\s*│\s*GET\s*│\s*\/api\/v1\/rounds\/\{id\}\s*│\s*paid/);

    const page = await json('api', 'listRounds', '--query', 'limit=2');
    // Not the newest: its `nextId` appears when the next round settles, between two calls.
    const [, settled] = page['rounds'] as { id: number }[];
    expect(page['rounds']).toHaveLength(2);
    const round = await json('api', 'getRound', '--path', `id=${settled!.id}`);
    expect(round['id']).toBe(settled!.id);
    // Without --json: the same answer, indented for reading.
    const pretty = await gridlab('api', 'getRound', '--path', `id=${settled!.id}`);
    expect(JSON.parse(pretty.stdout)).toEqual(round);
    expect(pretty.stdout).toMatch(/^ {2}"id": \d+,$/m);

    // A body from a file, and an operation no other command calls.
    const bodyFile = join(dir, 'strategy.json');
    await writeFile(bodyFile, JSON.stringify({ name: 'by operation', dsl: DSL }));
    const { strategy } = (await json('api', 'createStrategy', '--body', bodyFile)) as { strategy: { id: string; name: string } };
    expect(strategy.name).toBe('by operation');
    expect(await json('api', 'deleteStrategy', '--path', `id=${strategy.id}`)).toEqual({ ok: true });

    // A public operation needs no key.
    const board = await runCli(['api', 'getLeaderboard', '--json'], { ...env, GRIDLAB_API_KEY: '' });
    expect(board.code).toBe(0);
    expect(JSON.parse(board.stdout)).toHaveProperty('entries');

    // Refused before any request (exit 2), and the gateway's refusal as it named it (exit 1).
    const unknown = await gridlab('api', 'getNope');
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('getNope is not an operation of the API')]);
    const noId = await gridlab('api', 'getRound');
    expect([noId.code, noId.stderr]).toEqual([2, expect.stringContaining('needs --path id=')]);
    const stream = await gridlab('api', 'streamLive');
    expect([stream.code, stream.stderr]).toEqual([2, expect.stringContaining('answers an event stream')]);
    const bad = await gridlab('api', 'listRounds', '--query', 'limit=0');
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringMatching(/400 invalid_request/)]);
  });
  it('alerts: creates a rule with a webhook, shows its secret once, sends a signed test ping, shows the delivery log, disables and deletes it', async () => {
    await until('the gateway and the notifier answer', () => gridlab('alerts', 'list', '--json'), (r) => r.code === 0);
    const file = join(dir, 'rule.json');
    await writeFile(file, JSON.stringify({ kind: 'motherlode', minOre: 250, name: 'big pool', target: { url: receiver.url } }));
    const created = (await json('alerts', 'create', file)) as { alert: { id: string; kind: string; enabled: boolean }; secret: string };
    expect(created.alert).toMatchObject({ kind: 'motherlode', enabled: true });
    expect(created.secret).toMatch(/^whsec_/);
    const id = created.alert.id;
    expect(((await json('alerts', 'list')) as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual([id]);
    // A bad rule: refused, every problem named.
    await writeFile(file, JSON.stringify({ kind: 'square_ev', minEvPerSol: 0.1 }));
    const bad = await gridlab('alerts', 'create', file);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/stakeLamports/);
    expect(bad.stderr).toMatch(/fromSlotsBeforeEnd/);
    const ping = (await json('alerts', 'test', id)) as { delivered: boolean; status: number; webhookId: string };
    expect(ping).toMatchObject({ delivered: true, status: 204 });
    const got = receiver.receipts.find((r) => r.id === ping.webhookId)!;
    expect(() => new Webhook(created.secret).verify(got.raw, got.headers as Record<string, string>)).not.toThrow();
    const log = (await json('alerts', 'deliveries', id)) as { firings: { webhookId: string; state: string; attempts: { status: number }[] }[] };
    expect(log.firings[0]).toMatchObject({ webhookId: ping.webhookId, state: 'delivered', attempts: [{ status: 204 }] });
    expect(((await json('alerts', 'disable', id)) as { alert: { enabled: boolean } }).alert.enabled).toBe(false);
    expect((await gridlab('alerts', 'delete', id)).code).toBe(0);
    const gone = await gridlab('alerts', 'show', id);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/alert_not_found|does not exist/);
  });

  it("alerts follow: a rule without a target's firings as they are stored, and after a firing id on reconnect", async () => {
    const dslFile = join(dir, 'signal.json');
    await writeFile(dslFile, JSON.stringify(DSL));
    const strategyId = ((await json('strategies', 'create', dslFile, '--name', 'signal')) as { strategy: { id: string } }).strategy.id;
    const file = join(dir, 'signal-rule.json');
    await writeFile(file, JSON.stringify({ kind: 'strategy_signal', strategyId, name: 'next round' }));
    const created = (await json('alerts', 'create', file)) as { alert: { id: string }; secret: string | null };
    expect(created.secret).toBeNull();
    type Streamed = { id: number; ruleId: string; webhookId: string; payload: { type: string; ruleId: string; roundId: number } };
    const follow = startCli(['alerts', 'follow', '--json'], env);
    let firings: Streamed[];
    try {
      // lab-forward records the strategy's decision every round: the rule fires every round.
      firings = await until('two firings followed', async () => follow.lines().map((l) => JSON.parse(l) as Streamed), (f) => f.length >= 2, 60_000);
    } finally {
      await follow.stop();
    }
    expect(firings[0]).toMatchObject({ ruleId: created.alert.id, webhookId: expect.stringMatching(/^msg_/), payload: { type: 'alert.strategy_signal', ruleId: created.alert.id } });
    expect(firings[1]!.payload.roundId).toBeGreaterThan(firings[0]!.payload.roundId);
    // Resumed after the first: the second comes first (read back from the notifier's firings).
    const resumed = startCli(['alerts', 'follow', '--json', '--after', String(firings[0]!.id)], env);
    try {
      const again = await until('the firings after the first', async () => resumed.lines().map((l) => JSON.parse(l) as Streamed), (f) => f.length >= 1, 30_000);
      expect(again[0]).toEqual(firings[1]);
    } finally {
      await resumed.stop();
    }
    const table = startCli(['alerts', 'follow', '--after', String(firings[0]!.id)], env);
    try {
      const lines = await until('a firing as a line', async () => table.lines(), (l) => l.length >= 1, 30_000);
      expect(lines[0]!.split('\t')).toEqual([String(firings[1]!.id), expect.any(String), 'alert.strategy_signal', created.alert.id, String(firings[1]!.payload.roundId), firings[1]!.webhookId]);
    } finally {
      await table.stop();
    }
    expect((await gridlab('alerts', 'delete', created.alert.id)).code).toBe(0);
  });
});
