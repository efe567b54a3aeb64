/**
 * The local suite (deploy/local/run-suite.ts, as `make start` runs it) stopped
 * and started again continues the same chain, and /live, /stream and forward tests follow
 * it at once.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeBoard, OrePdas } from '@gridlab/chain';
import { createTestDatabase, localSuiteEnv, runCli, startLocalSuite, testNamespace, waitUntil, type LocalSuite, type TestDatabase } from '@gridlab/testing';

const SECRET = 'restart-test-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const PROGRAM_ID = 'oreV3EG1i9BEgiAJ8b177Z2S2rMarzak4NMv1kULvWv';

let db: TestDatabase;
const ns = testNamespace();
let dataDir: string;
let env: NodeJS.ProcessEnv;
let gateway: string;
let rpcUrl: string;
let suite: LocalSuite | null = null;

interface LiveView {
  roundId: number;
  slot: number;
  updatedAt: string;
  stale: boolean;
}

function startSuite(): LocalSuite {
  return startLocalSuite(env);
}

async function stopSuite(): Promise<number | null> {
  const running = suite;
  suite = null;
  return (await running?.stop()) ?? null;
}

function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 90_000, everyMs = 300): Promise<T> {
  return waitUntil(what, read, ok, { timeoutMs, everyMs, context: () => suite?.output() ?? '' });
}

let apiKey = '';
const authorized = () => ({ Authorization: `Bearer ${apiKey}` });

async function live(): Promise<{ status: number; age: number; body: LiveView }> {
  const res = await fetch(`${gateway}/api/v1/live`, { headers: authorized() });
  return { status: res.status, age: Number(res.headers.get('age')), body: (await res.json()) as LiveView };
}

/** The round the chain's board is at, read from the devnet itself. */
async function boardRound(): Promise<number> {
  const board = new OrePdas(PROGRAM_ID).board.toBase58();
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [board, { encoding: 'base64' }] }),
  });
  const body = (await res.json()) as { result: { value: { data: [string, string] } } };
  return decodeBoard(Buffer.from(body.result.value.data[0], 'base64')).roundId;
}

/** Snapshot event ids (`<roundId>-<seq>`) the stream sends, until `count` of them. */
async function streamIds(count: number): Promise<string[]> {
  const controller = new AbortController();
  const res = await fetch(`${gateway}/api/v1/stream`, { headers: authorized(), signal: controller.signal });
  expect(res.status).toBe(200);
  const ids: string[] = [];
  const decoder = new TextDecoder();
  let text = '';
  const timer = setTimeout(() => controller.abort(), 60_000);
  try {
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      for (const m of text.matchAll(/^id: (\S+)$/gm)) if (!ids.includes(m[1]!)) ids.push(m[1]!);
      if (ids.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return ids;
}

beforeAll(async () => {
  db = await createTestDatabase();
  dataDir = await mkdtemp(join(tmpdir(), 'gridlab-restart-'));
  const local = await localSuiteEnv({
    services: ['indexer', 'api-gateway', 'lab-forward'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir,
    historyRounds: 40,
  });
  rpcUrl = local.rpcUrl;
  gateway = local.gatewayUrl;
  env = { ...local.env, DEVNET_SAVE_INTERVAL_MS: '1000', LIVE_STALE_AFTER_S: '30' };
  const granted = await runCli(['admin', 'grant', '--owner', OWNER, '--days', '1'], { ...process.env, ...env });
  if (granted.code !== 0) throw new Error(granted.stderr);
  apiKey = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
});

afterAll(async () => {
  await stopSuite();
  await db.drop();
  await ns.cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the local suite across a restart', () => {
  it('continues the chain, and /live, /stream and forward tests follow it at once', async () => {
    // First run: let the chain advance well past its history.
    suite = startSuite();
    const before = await until('the first run to be live past its history', live, (r) => r.status === 200 && r.body.roundId > 45);
    expect(before.body.stale).toBe(false);
    expect(await stopSuite()).toBe(0);
    expect(existsSync(join(dataDir, 'devnet', 'ledger.json'))).toBe(true);
    const stoppedAt = before.body;

    // Second run: the same chain continues (round ids do not rewind)...
    const restartedAt = new Date();
    suite = startSuite();
    const chainRound = await until('the devnet to answer again', boardRound, (id) => id > 0);
    expect(chainRound).toBeGreaterThanOrEqual(stoppedAt.roundId);

    // ...and /live shows its current round, built by this run, not a leftover of the first.
    const boardBefore = await boardRound();
    const now = await until('/live to show the running chain', live, (r) => r.status === 200 && Date.parse(r.body.updatedAt) > restartedAt.getTime());
    const boardAfter = await boardRound();
    expect(now.body.stale).toBe(false);
    expect(now.body.roundId).toBeGreaterThanOrEqual(Math.max(boardBefore - 1, stoppedAt.roundId));
    expect(now.body.roundId).toBeLessThanOrEqual(boardAfter);
    expect(now.body.slot).toBeGreaterThanOrEqual(stoppedAt.slot);

    // /stream pushes changes: the current state, then new snapshots.
    const ids = await streamIds(3);
    expect(new Set(ids).size).toBeGreaterThanOrEqual(3); // one read may carry more than the three asked for

    // A forward test created now settles its next round.
    const created = await fetch(`${gateway}/api/v1/lab/strategies`, {
      method: 'POST',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'after restart', dsl: { base_strategy: 'cold', params: { bet_size_lamports: 10_000_000, num_squares: 5 } } }),
    });
    expect(created.status).toBe(201);
    const { strategy } = (await created.json()) as { strategy: { id: string } };
    const forward = await until(
      'the forward test to settle a round',
      async () => (await (await fetch(`${gateway}/api/v1/lab/strategies/${strategy.id}/forward`, { headers: authorized() })).json()) as { roundsSettled: number; sessionStartRoundId: number; lastSettledRoundId: number | null },
      (f) => f.roundsSettled >= 1,
      90_000,
      1000,
    );
    // Its session starts on the running chain (not after rounds of a chain that is gone).
    expect(forward.sessionStartRoundId).toBeLessThanOrEqual((await boardRound()) + 1);
    expect(forward.sessionStartRoundId).toBeGreaterThan(stoppedAt.roundId - 2);
    expect(forward.lastSettledRoundId).toBeGreaterThanOrEqual(forward.sessionStartRoundId);
  });
});
