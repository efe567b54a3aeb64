/**
 * The local suite (`make start`) heals. A service killed with SIGKILL is
 * restarted after a back-off, with a line saying so, and is ready again; with
 * GRIDLAB_REPLICAS=2 the standby of a single writer takes the lock when its leader dies.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, localSuiteEnv, startLocalSuite, suiteChildren as children, testNamespace, waitUntil, type LocalSuite, type TestDatabase } from '@gridlab/testing';

const SECRET = 'healing-test-secret-0123456789abcdef';

// One database per suite: each test starts a new devnet (a new chain), which the indexer
// would refuse to index into a database holding another chain's identity.
const dbs: TestDatabase[] = [];
const ns = testNamespace();
let work: string;
let suite: LocalSuite | null = null;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'gridlab-healing-'));
});

afterEach(async () => {
  await suite?.stop();
  suite = null;
});

afterAll(async () => {
  for (const db of dbs) await db.drop();
  await ns.cleanup();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

async function start(replicas: number): Promise<{ suite: LocalSuite; opsPort: number }> {
  const db = await createTestDatabase();
  dbs.push(db);
  const local = await localSuiteEnv({
    services: ['indexer'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir: join(work, `data-${replicas}`),
    historyRounds: 5,
  });
  const started = startLocalSuite({ ...local.env, GRIDLAB_REPLICAS: String(replicas), LOG_LEVEL: 'info' });
  suite = started;
  const opsPort = local.opsPorts['indexer']!;
  await waitUntil('the indexer to be ready', () => fetch(`http://127.0.0.1:${opsPort}/readyz`).then((r) => r.status), (s) => s === 200, { context: started.output });
  return { suite: started, opsPort };
}

describe('make start heals', () => {
  it('restarts a killed service after a back-off and says so', async () => {
    const { suite: s, opsPort } = await start(1);
    const [indexer] = children(s.pid, 'services/indexer/src/main.ts');
    expect(indexer).toBeDefined();
    process.kill(indexer!.pid, 'SIGKILL');
    await waitUntil('the restart line', async () => s.output(), (out) => /indexer \| exited with signal SIGKILL; restarting in 1 s \(restart 1\)/.test(out), { timeoutMs: 30_000 });
    await waitUntil('the indexer to be ready again', () => fetch(`http://127.0.0.1:${opsPort}/readyz`).then((r) => r.status), (st) => st === 200, { context: s.output });
    const again = children(s.pid, 'services/indexer/src/main.ts');
    expect(again.map((c) => c.pid)).not.toContain(indexer!.pid);
    // Ctrl-C still stops everything.
    expect(await s.stop()).toBe(0);
    suite = null;
  });

  it('with two replicas, the standby takes the writer lock when the leader dies', async () => {
    const { suite: s } = await start(2);
    /** The replica that acquired the lock last, from the prefixed log lines. */
    const lastLeader = async (): Promise<string | undefined> => [...s.output().matchAll(/^(indexer(?:-2)?)\s*\| .*leader lock acquired/gm)].at(-1)?.[1];
    const first = await waitUntil('a leader', lastLeader, (name) => name !== undefined, { context: s.output });
    await waitUntil('a standby', async () => s.output(), (out) => /standing by for leader lock/.test(out), { context: s.output });
    // The first replica has the fixed ops port, the second any free one ('0').
    const replicas = children(s.pid, 'services/indexer/src/main.ts');
    expect(replicas).toHaveLength(2);
    const leader = replicas.find((r) => (first === 'indexer' ? r.opsPort !== '0' : r.opsPort === '0'))!;
    process.kill(leader.pid, 'SIGKILL');
    const takeover = await waitUntil('the standby to take the lock', lastLeader, (name) => name !== undefined && name !== first, { context: s.output, timeoutMs: 60_000 });
    expect(takeover).toBe(first === 'indexer' ? 'indexer-2' : 'indexer');
  });
});
