/**
 * The examples of docs/nats-subjects.md ("Consuming from another service") run as another
 * team would run them: @gridlab/contracts and @gridlab/errors built and packed as
 * published, installed in a consumer project beside nats.js, each example type-checked
 * and run with tsx against a devnet suite publishing real settled rounds and events.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createTestDatabase,
  installPacked,
  linkDependency,
  markdownExamples,
  runTypeScript,
  startKeyedSuite,
  testNamespace,
  typeCheck,
  writeExampleProject,
  WORKSPACE_ROOT,
  type KeyedSuite,
  type TestDatabase,
} from '@gridlab/testing';

const SECRET = 'nats-docs-secret-0123456789abcdef';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

let db: TestDatabase;
const ns = testNamespace();
let work: string;
let consumer: string;
let running: KeyedSuite | null = null;
let env: NodeJS.ProcessEnv;
let examples: Map<string, string>;
let contracts: Record<string, unknown>;

const until = <T>(what: string, read: () => Promise<T>, ok: (value: T) => boolean): Promise<T> => running!.until(what, read, ok);
const runExample = (name: string, extraEnv: NodeJS.ProcessEnv): Promise<string> => runTypeScript(join(consumer, `${name}.ts`), consumer, { ...env, ...extraEnv });
const apiGet = <T>(path: string): Promise<T> => running!.get<T>(path);

beforeAll(async () => {
  examples = markdownExamples(await readFile(join(WORKSPACE_ROOT, 'docs/nats-subjects.md'), 'utf8'));
  work = await mkdtemp(join(tmpdir(), 'gridlab-nats-docs-'));
  consumer = join(work, 'consumer');
  await writeExampleProject(consumer, examples);
  await installPacked(join(WORKSPACE_ROOT, 'libs/errors'), consumer);
  contracts = await installPacked(join(WORKSPACE_ROOT, 'libs/contracts'), consumer);
  // The packed package's npm dependencies, as npm would install them beside it.
  for (const dep of ['ajv', '@sinclair/typebox']) await linkDependency(dep, join(WORKSPACE_ROOT, 'libs/contracts'), consumer);
  for (const dep of ['@nats-io/jetstream', '@nats-io/transport-node']) await linkDependency(dep, join(WORKSPACE_ROOT, 'libs/bus'), consumer);
  await linkDependency('@types/node', WORKSPACE_ROOT, consumer);

  db = await createTestDatabase();
  running = await startKeyedSuite({
    services: ['indexer', 'api-gateway', 'event-log'],
    databaseUrl: db.url,
    natsPrefix: ns.natsPrefix,
    redisPrefix: ns.redisPrefix,
    secret: SECRET,
    dataDir: join(work, 'data'),
    historyRounds: 40,
    owner: OWNER,
    // A milestone every 5 round ids: live events every few seconds.
    env: { EVENT_MILESTONE_ROUNDS: '5', NATS_URL: process.env['NATS_URL'] ?? '127.0.0.1:4222' },
  });
  env = running.env;
}, 240_000);

afterAll(async () => {
  await running?.suite.stop();
  await db?.drop();
  await ns.cleanup();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('docs/nats-subjects.md examples', () => {
  it('@gridlab/contracts is packed on its own: no private or workspace dependency, CommonJS and ES module consumers', () => {
    expect(contracts['private']).toBeUndefined();
    expect(contracts['dependencies']).toEqual({ '@gridlab/errors': expect.stringMatching(/^\^\d/), '@sinclair/typebox': expect.any(String), ajv: expect.any(String) });
    const script = "const c = MODULE; const n = c.natsNames('t1'); try { c.eventValidator('roundSettled')({}); } catch (e) { console.log(n.subjects.roundSettled, n.streams.rounds, e.kind, e.errors.length > 0); }";
    const name = JSON.stringify(contracts['name']);
    const viaRequire = execFileSync(process.execPath, ['-e', script.replace('MODULE', `require(${name})`)], { cwd: consumer, encoding: 'utf8' });
    const viaImport = execFileSync(process.execPath, ['--input-type=module', '-e', script.replace('MODULE', `await import(${name})`)], { cwd: consumer, encoding: 'utf8' });
    expect(viaRequire.trim()).toBe('t1.grid.round.settled T1_ROUNDS input true');
    expect(viaImport.trim()).toBe(viaRequire.trim());
  });

  it('has the two examples', () => {
    expect([...examples.keys()].sort()).toEqual(['event-log', 'settled-rounds']);
  });

  it('type-checks both examples against the published declarations', async () => {
    await typeCheck(consumer);
  });

  it('settled rounds: a durable consumer validates each round, and a restart continues after what it acked', async () => {
    const printed: string[] = [];
    const ids = (out: string): number[] => {
      const lines = [...out.matchAll(/^round (\d+): square (\d+|null), [\d.e-]+ SOL, (parimutuel|returns)$/gm)].map((m) => m[0]);
      printed.push(...lines);
      return lines.map((line) => Number(/^round (\d+)/.exec(line)![1]));
    };
    const first = ids(await runExample('settled-rounds', { STOP_AFTER: '5' }));
    expect(first).toHaveLength(5);
    expect(first).toEqual([...first].sort((a, b) => a - b));
    // The stream holds every settled round since the suite started: the first run begins with the oldest.
    expect(first[0]).toBeLessThanOrEqual(41);
    const second = ids(await runExample('settled-rounds', { STOP_AFTER: '3' }));
    expect(second).toHaveLength(3);
    expect(Math.min(...second)).toBeGreaterThan(first[4]!); // acked rounds are never delivered to this durable again
    // Each printed line is the stored round's, as the example formats it: square, SOL and payout rule.
    const expected = [];
    for (const id of [...first, ...second]) {
      const r = await apiGet<{ id: number; winningSquare: number | null; totalDeployed: number; payoutRule: string }>(`/api/v1/rounds/${id}`);
      expected.push(`round ${r.id}: square ${r.winningSquare}, ${r.totalDeployed / 1e9} SOL, ${r.payoutRule}`);
    }
    expect(printed).toEqual(expected);
  });

  it('event log: catches up from the API, then follows NATS live, resuming from its cursor without a gap or a repeat', async () => {
    const cursor = { CURSOR_FILE: join(work, 'event-log.cursor') };
    const ids = (out: string): number[] => [...out.matchAll(/^event (\d+): \w+/gm)].map((m) => Number(m[1]));
    const stored = await until('three events in the log', () => apiGet<{ events: { id: number }[] }>('/api/v1/events?limit=1000'), (b) => b.events.length >= 3);
    const first = ids(await runExample('event-log', { ...cursor, STOP_AFTER: '3' }));
    expect(first).toEqual(stored.events.slice(0, 3).map((e) => e.id));
    // The second run takes what is stored after the cursor, then at least two live events.
    const backlog = (await apiGet<{ events: unknown[] }>(`/api/v1/events?since=${first[2]}&limit=1000`)).events.length;
    const second = ids(await runExample('event-log', { ...cursor, STOP_AFTER: String(backlog + 2) }));
    expect(second[0]).toBe(first[2]! + 1);
    expect(second).toEqual(Array.from({ length: second.length }, (_, i) => first[2]! + 1 + i)); // no gap, no repeat
    expect(second.length).toBe(backlog + 2);
    expect(Number(await readFile(cursor.CURSOR_FILE, 'utf8'))).toBe(second.at(-1));
  });
});
