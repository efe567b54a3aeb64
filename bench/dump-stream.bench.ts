import { get } from 'node:http';
import type { Pool } from '@gridlab/db';
import { RoundRepository } from '@gridlab/rounds-store';
import { to as copyTo } from 'pg-copy-streams';
import { syntheticRounds } from '@gridlab/testing';
import { startGatewayUnderTest } from './gateway-harness';
import type { Bench } from './types';

const ROUNDS = 200_000;
/** At least this many rounds per second (the 2-core machine). */
const TARGET = 150_000;
const RUNS = 3;
/** /dump ≥ this share of a raw COPY of the same rows. */
const RATIO_TARGET = 0.5;
/** Rounds per line-writing transaction, as the indexer writes them. */
const LINE_BATCH = 5_000;

/**
 * The baseline: a raw binary `COPY … TO STDOUT` of the same rows in the same order, read
 * by Node and discarded (PostgreSQL's own read-out limit here); seconds it took.
 */
async function rawCopy(pool: Pool): Promise<number> {
  const client = await pool.connect();
  try {
    const started = performance.now();
    const stream = client.query(copyTo('COPY (SELECT * FROM indexer.rounds ORDER BY id) TO STDOUT (FORMAT binary)'));
    let bytes = 0;
    for await (const chunk of stream as AsyncIterable<Buffer>) bytes += chunk.length;
    if (bytes === 0) throw new Error('the raw COPY read nothing');
    return (performance.now() - started) / 1000;
  } finally {
    client.release();
  }
}

/**
 * Downloads the whole range as NDJSON; returns the seconds it took. node:http with a
 * native newline scan: the client must not be what is measured (fetch's web streams
 * cost as much per byte as the gateway's own work).
 */
function dump(url: string, key: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = get(`${url}/api/v1/dump`, { headers: { Authorization: `Bearer ${key}`, Accept: 'application/x-ndjson', 'Accept-Encoding': 'identity' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`dump answered ${res.statusCode}`));
      let lines = 0;
      res.on('data', (chunk: Buffer) => {
        for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      });
      res.on('end', () => (lines === ROUNDS ? resolve((performance.now() - started) / 1000) : reject(new Error(`received ${lines} of ${ROUNDS} rounds`))));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

/**
 * GET /dump as NDJSON: rounds per second a client receives, end to end, from PostgreSQL.
 * One dump first, reported apart: the first read of freshly inserted rows sets their hint
 * bits (a one-off write a settled database has long done), and the rounds have no stored
 * line yet. Then the indexer's step that stores the lines, and the median of three dumps.
 */
const bench: Bench = async () => {
  const gateway = await startGatewayUnderTest(1);
  try {
    const repo = new RoundRepository(gateway.pool);
    for (let first = 1; first <= ROUNDS; first += 20_000) await repo.insertMany(syntheticRounds(20_000, { seed: first, firstId: first }));
    const key = gateway.keys[0]!;
    // Before the indexer has stored the rounds' lines: every line encoded from its row.
    const firstRead = await dump(gateway.url, key);
    // What the indexer's leader does after rounds are stored (in batches between its other
    // work; here back to back).
    const linesStarted = performance.now();
    while ((await repo.writeLines(LINE_BATCH)) === LINE_BATCH);
    const linesSeconds = (performance.now() - linesStarted) / 1000;
    const seconds: number[] = [];
    const rawSeconds: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      rawSeconds.push(await rawCopy(gateway.pool));
      seconds.push(await dump(gateway.url, key));
    }
    const median = [...seconds].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
    const rawMedian = [...rawSeconds].sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;
    const rate = Math.round(ROUNDS / median);
    const rawRate = Math.round(ROUNDS / rawMedian);
    return [
      { key: 'dump.ndjsonRoundsPerSecond', label: `GET /dump NDJSON, ${ROUNDS.toLocaleString('en')} rounds (median of ${RUNS})`, value: rate, unit: 'rounds/s', target: `>= ${TARGET}`, met: rate >= TARGET },
      { key: 'dump.baseline.rawCopy', label: 'baseline: raw binary COPY TO STDOUT of the same rows, read and discarded', value: rawRate, unit: 'rounds/s' },
      { key: 'dump.ratioToRawCopy', label: 'GET /dump NDJSON ÷ raw COPY', value: rate / rawRate, unit: 'ratio', target: `>= ${RATIO_TARGET}`, met: rate / rawRate >= RATIO_TARGET },
      { key: 'dump.firstReadRoundsPerSecond', label: 'GET /dump NDJSON, first read after the insert (no stored lines: each encoded)', value: Math.round(ROUNDS / firstRead), unit: 'rounds/s' },
      { key: 'dump.linesWrittenPerSecond', label: "the indexer storing those rounds' lines", value: Math.round(ROUNDS / linesSeconds), unit: 'rounds/s' },
    ];
  } finally {
    await gateway.stop();
  }
};

export default bench;
