/**
 * Streams replicated on a 3-node JetStream cluster: NATS_STREAM_REPLICAS=3 puts
 * ROUNDS and the LIVE bucket on three servers, and killing the stream's leader (kill -9)
 * loses no settled round: publishing goes on after the election and the durable consumer
 * receives every round. The cluster is the test's own, on side ports.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { eventValidator, natsNames } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { startNatsCluster, syntheticRounds, testNamespace, type NatsCluster } from '@gridlab/testing';
import { connectBus, consumeDurable, decodeMessage, encodeMessage, ensureRoundsStream, jetStreamOf, openLiveBucket, publishDurable, type NatsConnection } from '../src';

const validateRound = eventValidator('roundSettled');

const logger = createLogger({ service: 'test', silent: true });
/** Rounds published across the leader's death: a few before it, the rest during and after the election. */
const PUBLISHED = 40;
/** How long one round may go unacknowledged: an election takes seconds, not a minute. */
const PUBLISH_DEADLINE_MS = 60_000;
const names = natsNames(testNamespace().natsPrefix);
let cluster: NatsCluster;
let nc: NatsConnection;

async function retry<T>(what: string, run: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${error instanceof Error ? error.message : String(error)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

beforeAll(async () => {
  cluster = await startNatsCluster(3);
  nc = await connectBus({ servers: cluster.servers, name: 'cluster-test', logger });
  // The cluster elects its JetStream meta leader first.
  await retry('the stream on the cluster', () => ensureRoundsStream(nc, names, { replicas: 3 }));
});
afterAll(async () => {
  await nc?.close();
  await cluster?.stop();
});

describe('streams on a 3-node JetStream cluster', () => {
  it('keeps ROUNDS and the LIVE bucket on three servers', async () => {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(names.streams.rounds);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.replicas).toHaveLength(2);
    await retry('the live bucket', () => openLiveBucket(nc, names, { replicas: 3 }));
    expect((await jsm.streams.info(`KV_${names.buckets.live}`)).config.num_replicas).toBe(3);
  });

  it("loses no settled round published while the stream's leader is killed and a new one is elected", async () => {
    const received = new Set<number>();
    const stop = await consumeDurable(nc, { stream: names.streams.rounds, durable: 'cluster_test', subject: names.subjects.roundSettled, logger }, async (msg) => {
      received.add(decodeMessage(validateRound, msg.data).id);
    });
    const rounds = syntheticRounds(PUBLISHED, { firstId: 7001 });
    const js = jetStreamOf(nc);
    const jsm = await jetstreamManager(nc);
    const leader = (await jsm.streams.info(names.streams.rounds)).cluster?.leader;
    const index = cluster.names.indexOf(leader ?? '');
    expect(index).toBeGreaterThanOrEqual(0);

    // A publisher as the indexer is one: round after round, each retried until acknowledged,
    // without waiting for the cluster to settle. The leader dies a few rounds in, so rounds
    // are published while the election is under way.
    const acked: number[] = [];
    let failedAttempts = 0;
    const attemptTimes: number[] = [];
    const publishing = (async () => {
      for (const round of rounds) {
        const deadline = Date.now() + PUBLISH_DEADLINE_MS;
        for (;;) {
          attemptTimes.push(Date.now());
          try {
            await publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, round), `cluster-${round.id}`);
            break;
          } catch (error) {
            failedAttempts++;
            if (Date.now() > deadline) throw new Error(`round ${round.id} not acknowledged within ${PUBLISH_DEADLINE_MS} ms: ${String(error)}`);
            await new Promise((r) => setTimeout(r, 100));
          }
        }
        acked.push(round.id);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    while (acked.length < 5) await new Promise((r) => setTimeout(r, 10));
    const killedAt = Date.now();
    await cluster.kill(index);
    await publishing;

    // The publisher kept going through the election: it tried to publish after the kill and
    // before the stream had a new leader (some of those attempts failed and were retried).
    expect(attemptTimes.some((t) => t > killedAt)).toBe(true);
    expect(failedAttempts).toBeGreaterThan(0);
    expect(acked).toEqual(rounds.map((r) => r.id));
    // A pull consumer whose server died resumes once two missed heartbeats tell it (about 10 s).
    await retry(
      'every acknowledged round delivered',
      async () => {
        const missing = acked.filter((id) => !received.has(id));
        if (missing.length > 0) throw new Error(`missing ${missing.join(',')}`);
      },
      120_000,
    );
    // A publisher that lost an ack publishes again: the new leader knows the ids and drops the copies.
    const again = await Promise.all(rounds.slice(0, 5).map((r) => publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, r), `cluster-${r.id}`)));
    expect(again.map((a) => a.duplicate)).toEqual([true, true, true, true, true]);
    const after = await jsm.streams.info(names.streams.rounds);
    expect(after.cluster?.leader).not.toBe(leader);
    // Each round stored once: a retried publish whose first ack was lost is deduplicated by its id.
    expect(after.state.messages).toBe(PUBLISHED);
    await stop();
  });
});
