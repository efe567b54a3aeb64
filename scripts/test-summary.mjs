#!/usr/bin/env node
// The last lines of `make test`: the ten slowest test files, then passed, failed and
// skipped tests from jest's JSON report.
// A skipped test checked nothing, so it is counted out loud; under CI=true any skipped
// test fails the run (a CI run must not pass on tests that did not run).
// Tests must also leave nothing running, and jest's own output says when one did; either
// line fails the run, CI or not:
// - "Cannot log after tests are done": something a test started still runs and logs
//   (named here);
// - "A worker process has failed to exit gracefully": something held a worker open when
//   jest ended it (jest.config.cjs gives a worker 5 s to exit).
// Usage: node scripts/test-summary.mjs <jest --json output file> [jest's console output];
// exits 1 when a test left something running, or when CI=true and something was skipped,
// else 0 (the caller keeps jest's own exit status).
import { readFileSync } from 'node:fs';

const [file, outputFile] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: test-summary.mjs <jest-results.json> [jest-output.log]');
  process.exit(2);
}
let failed = false;

const r = JSON.parse(readFileSync(file, 'utf8'));
// The ten slowest files first, so a run that got slower says where.
const root = process.cwd() + '/';
const slowest = r.testResults
  .map((f) => ({ name: f.name.startsWith(root) ? f.name.slice(root.length) : f.name, s: (f.endTime - f.startTime) / 1000 }))
  .sort((a, b) => b.s - a.s)
  .slice(0, 10);
console.log(`slowest files (of ${r.testResults.length}, ${Math.round((Date.now() - r.startTime) / 1000)} s since jest started):`);
for (const f of slowest) console.log(`  ${f.s.toFixed(1).padStart(6)} s  ${f.name}`);
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
if (skipped > 0) {
  const names = r.testResults.flatMap((f) =>
    f.assertionResults.filter((a) => a.status === 'pending' || a.status === 'todo').map((a) => `  ${a.status}: ${a.fullName} (${f.name})`),
  );
  console.log(names.join('\n'));
  if (process.env.CI === 'true') {
    console.error(`test-summary: ${skipped} skipped test(s) under CI=true: failing the run`);
    failed = true;
  }
}

if (outputFile !== undefined) {
  const lines = readFileSync(outputFile, 'utf8').split('\n');
  const leftRunning = lines.flatMap((line, i) => {
    if (line.includes('A worker process has failed to exit gracefully')) return ['tests held a jest worker open after its last file'];
    // jest prints what it refused to log on the next line: `Attempted to log "…".`
    if (line.includes('Cannot log after tests are done')) return [`logged after its test ended: ${(lines[i + 1] ?? '').trim()}`];
    return [];
  });
  if (leftRunning.length > 0) {
    const found = [...new Set(leftRunning)].join('\n  ');
    console.error(`test-summary: tests left something running (jest --runInBand --detectOpenHandles <file> shows where):\n  ${found}`);
    failed = true;
  }
}
if (failed) process.exit(1);
