#!/usr/bin/env node
// The last line of `make test`: passed, failed and skipped tests from jest's JSON report.
// A skipped test checked nothing, so it is counted out loud; under CI=true any skipped
// test fails the run (a CI run must not pass on tests that did not run).
// Usage: node scripts/test-summary.mjs <jest --json output file>; exits 1 when CI=true and
// something was skipped, else 0 (the caller keeps jest's own exit status).
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (file === undefined) {
  console.error('usage: test-summary.mjs <jest-results.json>');
  process.exit(2);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = r.numPendingTests + r.numTodoTests;
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
if (skipped > 0) {
  const names = r.testResults.flatMap((f) =>
    f.assertionResults.filter((a) => a.status === 'pending' || a.status === 'todo').map((a) => `  ${a.status}: ${a.fullName} (${f.name})`),
  );
  console.log(names.join('\n'));
  if (process.env.CI === 'true') {
    console.error(`test-summary: ${skipped} skipped test(s) under CI=true: failing the run`);
    process.exit(1);
  }
}
