/**
 * The examples of libs/client/README.md run as a reader would run them: the package built
 * and packed as published (dist/, publishConfig's exports), installed in a consumer's node_modules,
 * each ```ts example=<name> block type-checked and run with tsx against a devnet suite
 * started as `make start` starts it, with the environment variables the README names.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  installPacked,
  linkDependency,
  markdownExamples,
  runCli,
  runTypeScript,
  startKeyedSuite,
  testNamespace,
  typeCheck,
  writeExampleProject,
  WORKSPACE_ROOT,
  type KeyedSuite,
  type TestDatabase,
} from '@gridlab/testing';

const PACKAGE = join(__dirname, '..');
const SECRET = 'client-readme-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
/** What the examples import besides the client, linked into the consumer as npm would install them. */
const CONSUMER_DEPS = ['@noble/ed25519', '@solana/web3.js', '@solana/spl-token'];

let db: TestDatabase;
const ns = testNamespace();
let work: string;
let consumer: string;
let running: KeyedSuite | null = null;
let env: NodeJS.ProcessEnv;
let published: Record<string, unknown>;
let examples: Map<string, string>;

const until = <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> => running!.until(what, read, ok);
const runExample = (name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> => runTypeScript(join(consumer, `${name}.ts`), consumer, { ...env, ...extraEnv });

beforeAll(async () => {
  examples = markdownExamples(await readFile(join(PACKAGE, 'README.md'), 'utf8'));

  // The consumer: a module project with the packed client and its peers in node_modules.
  work = await mkdtemp(join(tmpdir(), 'gridlab-client-readme-'));
  consumer = join(work, 'consumer');
  await writeExampleProject(consumer, examples);
  published = await installPacked(PACKAGE, consumer);
  for (const dep of CONSUMER_DEPS) await linkDependency(dep, PACKAGE, consumer);
  await linkDependency('@types/node', WORKSPACE_ROOT, consumer);
  // The suite, as `make start` runs it, on free ports with this test's own prefixes.
  db = await createTestDatabase();
  running = await startKeyedSuite({
    services: ['indexer', 'api-gateway', 'billing', 'event-log', 'lab-backtest'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir: join(work, 'data'),
    historyRounds: 300,
    owner: OWNER,
  });
  env = running.env;
  await until('lab-backtest to be ready', () => fetch(`http://127.0.0.1:${running!.local.opsPorts['lab-backtest']}/readyz`).then((r) => r.status), (s) => s === 200);
}, 240_000);

afterAll(async () => {
  await running?.suite.stop();
  await db?.drop();
  await ns.cleanup();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('libs/client/README.md', () => {
  it('is packed as published: ES modules with declarations that import ./x.js, its README, no sources', async () => {
    const installed = join(consumer, 'node_modules/@gridlab/client');
    expect(published['private']).toBeUndefined();
    expect(JSON.stringify(published)).not.toMatch(/workspace:/);
    expect(JSON.stringify(published['exports'])).not.toMatch(/src\//);
    expect(await readFile(join(installed, 'dist/package.json'), 'utf8')).toMatch(/"type": "module"/);
    expect(await readFile(join(installed, 'dist/client.d.ts'), 'utf8')).not.toMatch(/from '\.\/[^']+\.ts'/);
    expect(await readFile(join(installed, 'README.md'), 'utf8')).toMatch(/example=live-watch/);
  });

  it('has the four examples the issue names', () => {
    expect([...examples.keys()].sort()).toEqual(['backtest', 'live-watch', 'resume-events', 'subscribe']);
  });

  it('type-checks every example against the published declarations', async () => {
    await typeCheck(consumer);
  });

  it('live watch: prints the live round, then two settled rounds', async () => {
    const out = await runExample('live-watch');
    expect(out).toMatch(/^round \d+ \((waiting|active|intermission)\): [\d.]+ SOL deployed by \d+ miners$/m);
    const settled = [...out.matchAll(/^round (\d+) settled: square (\d+|null), [\d.]+ SOL$/gm)].map((m) => Number(m[1]));
    expect(settled).toHaveLength(2);
    expect(settled[1]).toBeGreaterThan(settled[0]!);
  });

  it('backtest: prints the result, then the field error of a bad parameter', async () => {
    const out = await runExample('backtest');
    expect(out).toMatch(/^\d+ rounds bet, \d+ won, net -?[\d.e-]+ SOL$/m);
    expect(out).toMatch(/^400 \S+: \/dsl\/params\/bet_size_lamports /m);
  });

  it('subscribe: pays from a fresh wallet, gets a key that reads the API, and rotates it', async () => {
    const walletFile = join(work, 'wallet.json');
    const made = await runCli(['keygen', '-o', walletFile]);
    if (made.code !== 0) throw new Error(made.stderr);
    const { publicKey } = JSON.parse(made.stdout) as { publicKey: string };
    const funded = await runCli(['devnet', 'fund', '--owner', publicKey, '--tokens', '1', '--sol', '1', '--rpc', env['SOLANA_RPC_URL']!]);
    if (funded.code !== 0) throw new Error(funded.stderr);
    const out = await runExample('subscribe', { GRIDLAB_WALLET: walletFile, GRIDLAB_API_KEY: '' });
    expect(out).toMatch(/^paid: [1-9A-HJ-NP-Za-km-z]{64,88}$/m);
    expect(out).toMatch(/^key \S+… paid until \d{4}-\d\d-\d\dT/m);
    expect(out).toMatch(/^live round: \d+$/m);
    expect(out).toMatch(/^rotated: true$/m);
  });

  it('resume events: a second run starts right after the last event the first handled', async () => {
    await until('six events in the log', () => running!.get<{ events: unknown[] }>('/api/v1/events?limit=10'), (b) => b.events.length >= 6);
    const cursor = { CURSOR_FILE: join(work, 'events.cursor') };
    const ids = (out: string): number[] => [...out.matchAll(/^event (\d+): \w+$/gm)].map((m) => Number(m[1]));
    const first = ids(await runExample('resume-events', cursor));
    const second = ids(await runExample('resume-events', cursor));
    expect(first).toHaveLength(3);
    expect(second).toHaveLength(3);
    expect(Number(await readFile(cursor.CURSOR_FILE, 'utf8'))).toBe(second[2]);
    // Ascending, and the second run continues after the first's last id with nothing repeated.
    const all = [...first, ...second];
    expect(all).toEqual([...all].sort((a, b) => a - b));
    expect(new Set(all).size).toBe(6);
    expect(second[0]).toBe(first[2]! + 1); // event ids have no holes
  });
});
