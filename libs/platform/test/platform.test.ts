/**
 * The platform's lifetime in a real process, against real PostgreSQL and NATS: what a
 * service owns is released in reverse order on SIGTERM and when start-up fails.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createTestDatabase, freePort, testNamespace, WORKSPACE_ROOT, type TestDatabase } from '@gridlab/testing';

const FIXTURE = join(__dirname, 'fixtures/service.ts');
let db: TestDatabase;
const ns = testNamespace();

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => {
  await db.drop();
});

interface Run {
  /** Resolves with the process's exit code, printed lines, log lines and stderr once it has exited. */
  readonly exited: Promise<{ code: number | null; stdout: string[]; logs: Record<string, unknown>[]; stderr: string }>;
  /** Resolves once the process printed `line`. */
  printed(line: string): Promise<void>;
  kill(signal: NodeJS.Signals): void;
}

function run(mode: string, env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...env, FIXTURE_MODE: mode, DATABASE_URL: db.url, NATS_URL: ns.natsUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiting: { line: string; resolve: () => void }[] = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const w of waiting) if (stdout.split('\n').includes(w.line)) w.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; stdout: string[]; logs: Record<string, unknown>[]; stderr: string }>((resolve) =>
    child.once('exit', (code) => {
      const lines = stdout.split('\n').filter(Boolean);
      // The logger writes JSON lines to stdout too.
      const logs = lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code, stdout: lines.filter((l) => !l.startsWith('{')), logs, stderr });
    }),
  );
  return {
    exited,
    printed: (line) => new Promise((resolve) => waiting.push({ line, resolve })),
    kill: (signal) => void child.kill(signal),
  };
}

/** What the fixture prints as it releases its two resources, the last acquired first. */
const RELEASED = ['released last', 'released first with the pool open'];

/** Runs the fixture in `mode` until it is ready, then sends it SIGTERM. */
async function terminated(mode: string): ReturnType<typeof run>['exited'] {
  const service = run(mode);
  await service.printed('ready');
  service.kill('SIGTERM');
  return service.exited;
}

describe('a service process on the platform', () => {
  it('on SIGTERM releases what it owns last acquired first, before the pool, and exits 0', async () => {
    const { code, stdout } = await terminated('running');
    expect(stdout).toEqual(['ready', ...RELEASED]);
    expect(code).toBe(0);
  });

  it('on SIGTERM goes on past a release that fails, and exits 1', async () => {
    const { code, stdout, logs } = await terminated('failing-release');
    expect(stdout).toEqual(['ready', ...RELEASED]);
    expect(logs).toContainEqual(expect.objectContaining({ message: 'shutdown step failed', step: 'broken' }));
    expect(code).toBe(1);
  });

  it('when start-up fails part-way, says why, releases what it acquired in reverse, and exits 1', async () => {
    const { code, stdout, stderr } = await run('failing-start').exited;
    expect(stderr).toContain('fixture: wiring failed');
    expect(stdout).toEqual(RELEASED);
    expect(code).toBe(1);
  });

  it('says why start-up failed without the credentials of a URL in the reason', async () => {
    const { code, stderr } = await run('failing-start-at-url').exited;
    expect(stderr).toContain('fixture: no answer from https://rpc.example.com/');
    expect(stderr).not.toContain('S3CRET');
    expect(code).toBe(1);
  });

  it('when SIGTERM cuts a waiting start-up step short, the shutdown decides the exit', async () => {
    const { code, stdout, stderr } = await terminated('waiting-start');
    expect(stdout).toEqual(['ready', ...RELEASED]);
    expect(stderr).not.toContain('fixture:');
    expect(code).toBe(0);
  });

  it('when the platform itself cannot start, what it had acquired is closed: the process ends by itself', async () => {
    const port = await freePort();
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      // Left open, the NATS connection would keep the process alive (the test would time out).
      const { code, stdout } = await run('ops-port-taken', { OPS_PORT: String(port) }).exited;
      expect(stdout).toEqual([expect.stringContaining('start failed: listen EADDRINUSE')]);
      expect(code).toBe(0);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
