import { connectBus, encodeMessage, ensureRoundsStream, jetStreamOf, publishDurable } from '@gridlab/bus';
import { eventValidator, natsNames } from '@gridlab/contracts';
import { createPool } from '@gridlab/db';
import { createLogger } from '@gridlab/logger';
import { RoundRepository } from '@gridlab/rounds-store';
import { answersOk, freePort, startService, syntheticRounds } from '@gridlab/testing';
import { startGatewayUnderTest } from './gateway-harness';
import type { Bench } from './types';

const validateRound = eventValidator('roundSettled');

const BACKFILL_ROUNDS = 200_000;
const LIVE_ROUNDS = 60;

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/**
 * The event log: (1) events appended per second while event-log derives a backfilled
 * history of 200,000 rounds from PostgreSQL; (2) delivery latency from a round's
 * settlement announcement (stored, then published on JetStream as the indexer does) to
 * an /events/stream client, through the event-log process and a gateway process.
 */
const bench: Bench = async () => {
  const gateway = await startGatewayUnderTest(1);
  const { db, ns } = gateway;
  const pool = createPool(db.url);
  const nc = await connectBus({ servers: ns.natsUrl, name: 'bench-events', logger: createLogger({ service: 'bench', silent: true }) });
  let writer: Awaited<ReturnType<typeof startService>> | undefined;
  try {
    const repo = new RoundRepository(pool);
    const history = syntheticRounds(BACKFILL_ROUNDS + LIVE_ROUNDS, { seed: 5, firstId: 1 });
    for (let from = 0; from < BACKFILL_ROUNDS; from += 20_000) await repo.insertMany(history.slice(from, from + 20_000));

    // (1) Backfill: start the writer over the stored history.
    const opsPort = await freePort();
    const started = performance.now();
    const env = { DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, OPS_PORT: String(opsPort), LOG_LEVEL: 'warn' };
    writer = await startService('services/event-log/src/main.ts', env, () => answersOk(`http://127.0.0.1:${opsPort}/healthz`));
    const watermark = async (): Promise<number> => Number((await pool.query('SELECT round_id FROM events.progress')).rows[0].round_id);
    while ((await watermark()) < BACKFILL_ROUNDS) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - started) / 1000;
    const appended = Number((await pool.query('SELECT count(*) AS n FROM events.events')).rows[0].n);

    // (2) Live: a writer that sees a milestone in every round id, so each round below yields
    // an event to time; one SSE client; each round is stored, then announced.
    await writer.stop();
    writer = await startService('services/event-log/src/main.ts', { ...env, EVENT_MILESTONE_ROUNDS: '1' }, () => answersOk(`http://127.0.0.1:${opsPort}/healthz`));
    const names = natsNames(ns.natsPrefix);
    await ensureRoundsStream(nc, names);
    const js = jetStreamOf(nc);
    const res = await fetch(`${gateway.url}/api/v1/events/stream?kind=milestone&since=${appended}`, { headers: { Authorization: `Bearer ${gateway.keys[0]}` } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const latencies: number[] = [];
    let buffer = '';
    for (const round of history.slice(BACKFILL_ROUNDS)) {
      await repo.insertSettled(round);
      const sent = performance.now();
      await publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, round), String(round.id));
      for (;;) {
        const framed = buffer.indexOf(`"roundId":${round.id}`);
        if (framed >= 0) {
          buffer = buffer.slice(framed + 10);
          break;
        }
        const { value, done } = await reader.read();
        if (done) throw new Error('event stream ended');
        buffer += decoder.decode(value, { stream: true });
      }
      latencies.push(performance.now() - sent);
    }
    await reader.cancel();
    latencies.sort((a, b) => a - b);
    return [
      { key: 'events.backfillEventsPerSecond', label: `events appended during a ${BACKFILL_ROUNDS.toLocaleString('en')}-round backfill`, value: Math.round(appended / seconds), unit: 'events/s' },
      { key: 'events.backfillRoundsPerSecond', label: 'rounds derived during that backfill', value: Math.round(BACKFILL_ROUNDS / seconds), unit: 'rounds/s' },
      { key: 'events.deliveryMedianMs', label: 'round settled → /events/stream client, median', value: Math.round(percentile(latencies, 0.5) * 100) / 100, unit: 'ms' },
      { key: 'events.deliveryP99Ms', label: 'round settled → /events/stream client, p99', value: Math.round(percentile(latencies, 0.99) * 100) / 100, unit: 'ms' },
    ];
  } finally {
    await writer?.stop();
    await nc.drain();
    await pool.end();
    await gateway.stop();
  }
};

export default bench;
