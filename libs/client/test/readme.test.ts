/**
 * The examples of libs/client/README.md run as a reader would run them: the package built
 * and packed as published (dist/, publishConfig's exports), installed in a consumer's node_modules,
 * each ```ts example=<name> block type-checked and run with tsx against a devnet suite
 * started as `make start` starts it, with the environment variables the README names.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createTestDatabase, freePort, installPacked, linkDependency, runCli, testNamespace, WORKSPACE_ROOT, type TestDatabase } from '@gridlab/testing';

const run = promisify(execFile);
const PACKAGE = join(__dirname, '..');
const SECRET = 'client-readme-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
/** What the examples import besides the client, linked into the consumer as npm would install them. */
const CONSUMER_DEPS = ['@noble/ed25519', '@solana/web3.js', '@solana/spl-token'];

let db: TestDatabase;
const ns = testNamespace();
let work: string;
let consumer: string;
let suite: ChildProcess | null = null;
let output = '';
let env: NodeJS.ProcessEnv;
let published: Record<string, unknown>;
const examples = new Map<string, string>();

/** The ```ts example=<name> blocks of the README. */
function readmeExamples(markdown: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of markdown.matchAll(/^```ts example=([\w-]+)\n([\s\S]*?)^```$/gm)) found.set(m[1]!, m[2]!);
  return found;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await read();
      if (ok(value)) return value;
      last = value;
    } catch (error) {
      last = error instanceof Error ? error.message : error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}\n${output.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Runs one README example in the consumer directory; resolves with its output. */
async function runExample(name: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const file = join(consumer, `${name}.ts`);
  const tsx = pathToFileURL(join(WORKSPACE_ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
  try {
    const { stdout } = await run(process.execPath, ['--import', tsx, file], { cwd: consumer, env: { ...process.env, ...env, ...extraEnv }, timeout: 150_000 });
    return stdout;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`example ${name} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

beforeAll(async () => {
  const readme = await readFile(join(PACKAGE, 'README.md'), 'utf8');
  for (const [name, code] of readmeExamples(readme)) examples.set(name, code);

  // The consumer: a module project with the packed client and its peers in node_modules.
  work = await mkdtemp(join(tmpdir(), 'gridlab-client-readme-'));
  consumer = join(work, 'consumer');
  published = await installPacked(PACKAGE, consumer);
  for (const dep of CONSUMER_DEPS) await linkDependency(dep, PACKAGE, consumer);
  await linkDependency('@types/node', WORKSPACE_ROOT, consumer);
  await writeFile(join(consumer, 'package.json'), JSON.stringify({ name: 'readme-consumer', private: true, type: 'module' }));
  await writeFile(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, skipLibCheck: true, types: ['node'] }, include: ['*.ts'] }),
  );
  for (const [name, code] of examples) await writeFile(join(consumer, `${name}.ts`), code);

  // The suite, as `make start` runs it, on free ports with this test's own prefixes.
  db = await createTestDatabase();
  const ports = await Promise.all(Array.from({ length: 8 }, () => freePort()));
  const [rpcPort, wsPort, gatewayPort, gatewayOps, indexerOps, billingOps, eventLogOps, backtestOps] = ports as [number, number, number, number, number, number, number, number];
  env = {
    GRIDLAB_SUITE: 'devnet,indexer,api-gateway,billing,event-log,lab-backtest',
    GRIDLAB_DATA_DIR: join(work, 'data'),
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    LOG_LEVEL: 'warn',
    DEVNET_RPC_PORT: String(rpcPort),
    DEVNET_WS_PORT: String(wsPort),
    DEVNET_SLOT_MS: '40',
    DEVNET_ROUND_SLOTS: '15',
    DEVNET_INTERMISSION_SLOTS: '4',
    DEVNET_HISTORY_ROUNDS: '300',
    SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}`,
    SOLANA_WS_URL: `ws://127.0.0.1:${wsPort}`,
    SLOT_SECONDS: '0.04',
    POLL_INTERVAL_MS: '200',
    CATCH_UP_INTERVAL_MS: '200',
    PORT: String(gatewayPort),
    GATEWAY_OPS_PORT: String(gatewayOps),
    INDEXER_OPS_PORT: String(indexerOps),
    BILLING_OPS_PORT: String(billingOps),
    EVENT_LOG_OPS_PORT: String(eventLogOps),
    LAB_BACKTEST_OPS_PORT: String(backtestOps),
    LAB_WORKERS: '1',
    GRIDLAB_URL: `http://127.0.0.1:${gatewayPort}`,
  };
  suite = spawn(process.execPath, ['--import', 'tsx', join(WORKSPACE_ROOT, 'deploy/local/run-suite.ts')], { cwd: WORKSPACE_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  suite.stdout!.on('data', keep);
  suite.stderr!.on('data', keep);

  const granted = await runCli(['admin', 'grant', '--owner', OWNER, '--days', '1'], { ...process.env, ...env });
  if (granted.code !== 0) throw new Error(granted.stderr);
  env['GRIDLAB_API_KEY'] = (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
  const headers = { Authorization: `Bearer ${env['GRIDLAB_API_KEY']}` };
  await until('the history to be indexed', async () => (await (await fetch(`${env['GRIDLAB_URL']}/api/v1/rounds?limit=1`, { headers })).json()) as { rounds: { id: number }[] }, (b) => (b.rounds?.[0]?.id ?? 0) >= 300);
  await until('lab-backtest to be ready', () => fetch(`http://127.0.0.1:${backtestOps}/readyz`).then((r) => r.status), (s) => s === 200);
}, 240_000);

afterAll(async () => {
  const child = suite;
  if (child !== null && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
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
    try {
      await run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: consumer });
    } catch (error) {
      const e = error as { stdout?: string };
      throw new Error(`the README examples do not type-check:\n${e.stdout ?? ''}`);
    }
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
    const headers = { Authorization: `Bearer ${env['GRIDLAB_API_KEY']}` };
    await until('six events in the log', async () => (await (await fetch(`${env['GRIDLAB_URL']}/api/v1/events?limit=10`, { headers })).json()) as { events: unknown[] }, (b) => b.events.length >= 6);
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
