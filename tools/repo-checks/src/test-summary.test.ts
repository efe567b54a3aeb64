/**
 * scripts/test-summary.mjs, the last step of `make test`: it fails the run when jest says
 * something logged after its test ended or held a worker open, and under CI=true when a
 * test was skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, '..', '..', '..', 'scripts', 'test-summary.mjs');
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'test-summary-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function summary(output: string | null, { pending = 0, ci = 'false' } = {}): { status: number | null; stdout: string; stderr: string } {
  const results = join(dir, 'results.json');
  const assertionResults = [{ status: 'passed', fullName: 'a passes' }, ...Array.from({ length: pending }, (_, i) => ({ status: 'pending', fullName: `skipped ${i}` }))];
  writeFileSync(results, JSON.stringify({ numPassedTests: 1, numFailedTests: 0, numPendingTests: pending, numTodoTests: 0, testResults: [{ name: 'a.test.ts', assertionResults }] }));
  const args = [SCRIPT, results];
  if (output !== null) {
    writeFileSync(join(dir, 'output.log'), output);
    args.push(join(dir, 'output.log'));
  }
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env: { ...process.env, CI: ci } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// jest 30's own words, as it prints them.
const WORKER_LEFT =
  'A worker process has failed to exit gracefully and has been force exited. This is likely caused by tests leaking due to improper teardown. Try running with --detectOpenHandles to find leaks. Active timers can also cause this, ensure that .unref() was called on them.';
const LOGGED_LATE = '  ●  Cannot log after tests are done. Did you forget to wait for something async in your test?\n    Attempted to log "ws error: connect ECONNREFUSED 127.0.0.1:38553".';

describe('test-summary', () => {
  it('passes a clean run and prints the counts', () => {
    const r = summary('PASS unit a.test.ts\nTests: 1 passed, 1 total\n');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('tests: 1 passed, 0 failed, 0 skipped');
  });

  it('fails a run in which a worker was still held open as jest ended it, CI or not', () => {
    for (const ci of ['true', 'false']) {
      const r = summary(`PASS unit a.test.ts\n${WORKER_LEFT}\n`, { ci });
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('tests held a jest worker open after its last file');
    }
  });

  it('fails a run in which something logged after its test ended, CI or not, naming what it logged', () => {
    const r = summary(`PASS integration b.test.ts\n\n${LOGGED_LATE}\n\n${LOGGED_LATE}\n`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('logged after its test ended: Attempted to log "ws error: connect ECONNREFUSED 127.0.0.1:38553"');
    // The same message repeated (once a second, say) is reported once.
    expect(r.stderr.match(/logged after its test ended/g)).toHaveLength(1);
  });

  it('fails a skipped test under CI=true only', () => {
    expect(summary('', { pending: 1, ci: 'true' }).status).toBe(1);
    const local = summary('', { pending: 1 });
    expect(local.status).toBe(0);
    expect(local.stdout).toContain('pending: skipped 0 (a.test.ts)');
  });

  it('without the console output, judges the report alone', () => {
    expect(summary(null).status).toBe(0);
  });
});
