import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool } from '@gridlab/db';
import { RoundRepository } from '@gridlab/rounds-store';
import { execFile } from 'node:child_process';
import { createTestDatabase, runCli, syntheticRounds, WORKSPACE_ROOT, type TestDatabase } from '@gridlab/testing';

const gridlab = runCli;

describe('gridlab import', () => {
  let db: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await mkdtemp(join(tmpdir(), 'gridlab-cli-'));
  });
  afterAll(async () => {
    await db.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('migrates, imports a file and prints a JSON summary; a rerun inserts nothing', async () => {
    const rounds = syntheticRounds(1200, { seed: 3 });
    const file = join(dir, 'history.ndjson');
    await writeFile(file, rounds.map((r) => JSON.stringify(r)).join('\n'));
    const first = await gridlab(['import', file], { DATABASE_URL: db.url });
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ read: 1200, inserted: 1200, duplicates: 0, invalid: 0 });
    const second = await gridlab(['import', file], { DATABASE_URL: db.url });
    expect(JSON.parse(second.stdout)).toMatchObject({ read: 1200, inserted: 0, duplicates: 1200 });
    const pool = createPool(db.url);
    try {
      expect(await new RoundRepository(pool).getRounds({ limit: 5000 })).toEqual(rounds);
    } finally {
      await pool.end();
    }
  });

  it('exits 2 with one clear line for an invalid file and for a missing argument', async () => {
    const file = join(dir, 'bad.ndjson');
    await writeFile(file, '{"id": 1}\n');
    const bad = await gridlab(['import', file], { DATABASE_URL: db.url });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^gridlab: .*bad\.ndjson:1/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const usage = await gridlab(['import'], { DATABASE_URL: db.url });
    expect(usage.code).toBe(2);
  });

  it('shows a progress bar with rate and ETA on a terminal (run under a pseudo-terminal by script(1))', async () => {
    const file = join(dir, 'tty.ndjson');
    await writeFile(file, syntheticRounds(3000, { seed: 9 }).map((r) => JSON.stringify(r)).join('\n'));
    const command = `${process.execPath} --import tsx tools/cli/src/main.ts import ${file} --batch-size 500`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile('script', ['-qec', command, '/dev/null'], { cwd: WORKSPACE_ROOT, env: { ...process.env, DATABASE_URL: db.url } }, (error, stdout) =>
        error === null ? resolve(stdout) : reject(error),
      ),
    );
    expect(out).toMatch(/import \[[^\]]+\] 100% \| 3000 read, \d+ new \| \d+ rounds\/s \| ETA \d+s/);
    expect(out).toContain('"read":3000');
  });
});
