/**
 * Streams replicated on a 3-node JetStream cluster (issue 15): NATS_STREAM_REPLICAS=3 puts
 * ROUNDS and the LIVE bucket on three servers, and killing the stream's leader (kill -9)
 * loses no settled round: publishing goes on after the election and the durable consumer
 * receives every round. The cluster is the test's own, on side ports.
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { natsNames, validateRound } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { startNatsCluster, syntheticRounds, testNamespace, type NatsCluster } from '@gridlab/testing';
import { connectBus, consumeDurable, decodeMessage, encodeMessage, ensureRoundsStream, jetStreamOf, openLiveBucket, publishDurable, type NatsConnection } from '../src';

const logger = createLogger({ service: 'test', silent: true });
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

  it("loses no settled round when the stream's leader is killed", async () => {
    const received: number[] = [];
    const stop = await consumeDurable(nc, { stream: names.streams.rounds, durable: 'cluster_test', subject: names.subjects.roundSettled, logger }, async (msg) => {
      received.push(decodeMessage(validateRound, msg.data).id);
    });
    const [first, second] = syntheticRounds(2, { firstId: 7001 });
    const js = jetStreamOf(nc);
    await publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, first!), 'cluster-7001');

    const jsm = await jetstreamManager(nc);
    const leader = (await jsm.streams.info(names.streams.rounds)).cluster?.leader;
    const index = cluster.names.indexOf(leader ?? '');
    expect(index).toBeGreaterThanOrEqual(0);
    await cluster.kill(index);

    await retry('publishing after the election', () => publishDurable(js, names.subjects.roundSettled, encodeMessage(validateRound, second!), 'cluster-7002'));
    // A pull consumer whose server died resumes once its missed heartbeats tell it (tens of seconds).
    await retry(
      'both rounds delivered',
      async () => {
        if (!(received.includes(7001) && received.includes(7002))) throw new Error(`received ${received.join(',')}`);
      },
      120_000,
    );
    const after = await jsm.streams.info(names.streams.rounds);
    expect(after.cluster?.leader).not.toBe(leader);
    expect(after.state.messages).toBe(2);
    await stop();
  });
});
