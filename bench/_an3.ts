import { History, analyze, normalizeDsl } from '/work/main/libs/strategy/src';
import { syntheticRounds } from '/work/main/libs/testing/src';
import { computeReply } from '/work/main/services/lab-backtest/src/app/compute';
import * as contracts from '@gridlab/contracts';
const h = History.from(syntheticRounds(100_000, { seed: 1, firstId: 1 }));
for (let i = 0; i < 5; i++) {
  const dsl = normalizeDsl({ base_strategy: 'cold', params: { bet_size_lamports: 1_000_001 + i } });
  let t = performance.now(); const a = analyze(h, dsl); const ta = performance.now() - t;
  t = performance.now(); contracts.validateAnalytics(a); const tv = performance.now() - t;
  t = performance.now(); const s = JSON.stringify(a); const ts = performance.now() - t;
  t = performance.now(); computeReply(h, { kind: 'analytics', dsl }); const tc = performance.now() - t;
  console.log(`analyze ${ta.toFixed(0)} validate ${tv.toFixed(1)} stringify ${ts.toFixed(1)} bytes ${s.length} computeReply ${tc.toFixed(0)}`);
}
