import { RoundRepository } from '@gridlab/rounds-store';
import { syntheticRounds } from '@gridlab/testing';
import { startGatewayUnderTest } from './gateway-harness';
import type { Bench } from './types';

const ROUNDS = 200_000;
const TARGET = 100_000;

/** GET /dump as NDJSON: rounds per second a client receives, end to end, from PostgreSQL. */
const bench: Bench = async () => {
  const gateway = await startGatewayUnderTest(1);
  try {
    const repo = new RoundRepository(gateway.pool);
    for (let first = 1; first <= ROUNDS; first += 20_000) await repo.insertMany(syntheticRounds(20_000, { seed: first, firstId: first }));
    const started = performance.now();
    const res = await fetch(`${gateway.url}/api/v1/dump`, { headers: { Authorization: `Bearer ${gateway.keys[0]}`, Accept: 'application/x-ndjson', 'Accept-Encoding': 'identity' } });
    let lines = 0;
    const reader = res.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const byte of value) if (byte === 10) lines++;
    }
    const seconds = (performance.now() - started) / 1000;
    if (lines !== ROUNDS) throw new Error(`received ${lines} of ${ROUNDS} rounds`);
    const rate = Math.round(ROUNDS / seconds);
    return [{ key: 'dump.ndjsonRoundsPerSecond', label: `GET /dump NDJSON, ${ROUNDS.toLocaleString('en')} rounds`, value: rate, unit: 'rounds/s', target: `>= ${TARGET}`, met: rate >= TARGET }];
  } finally {
    await gateway.stop();
  }
};

export default bench;
