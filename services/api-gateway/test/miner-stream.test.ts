import { connectBus, encodeEvent, type NatsConnection } from '@gridlab/bus';
import { natsNames, type MinerDeployed } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { testNamespace } from '@gridlab/testing';
import { followMiners } from '../src/adapters/nats/miner-feed';
import { MemoryLedger, minerRound, OTHER_WALLET, readEvents, startHarness, WALLET, type Harness } from './miners-harness';

const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
let nc: NatsConnection;
let h: Harness;
let stopFollowing: () => void;

beforeAll(async () => {
  const logger = createLogger({ service: 'test', silent: true });
  nc = await connectBus({ servers: ns.natsUrl, name: 'miner-stream-test', logger });
  h = await startHarness(new MemoryLedger(new Map([[WALLET, [12, 11].map((id) => minerRound(id))]])));
  stopFollowing = followMiners(nc, names, h.stream, logger);
  await nc.flush();
});
afterAll(async () => {
  stopFollowing();
  await h.close();
  await nc.drain();
  await ns.cleanup();
});

describe('the miner stream over NATS', () => {
  it("pushes grid.miners.deployed and grid.miners.settled to the wallet's stream, after its replay, and ignores a message its contract refuses", async () => {
    const res = await fetch(`${h.url}/api/v1/miners/${WALLET}/stream`, { headers: { Authorization: 'Bearer grid_test', 'Last-Event-ID': '11' } });
    expect(res.status).toBe(200);
    const deploy: MinerDeployed = { roundId: 13, address: WALLET, signer: WALLET, signature: '5sig', slot: 9000, squares: [1, 2], amount: 50_000, automated: true, automationStrategy: 0 };
    // Not a MinerDeployed (no signature): dropped by the contract check, never sent.
    nc.publish(names.subjects.minerDeployed, new TextEncoder().encode(JSON.stringify({ ...deploy, signature: undefined, slot: -1 })));
    nc.publish(names.subjects.minerDeployed, encodeEvent('minerDeployed', { ...deploy, address: OTHER_WALLET }));
    nc.publish(names.subjects.minerDeployed, encodeEvent('minerDeployed', deploy));
    nc.publish(names.subjects.minersSettled, encodeEvent('minersSettled', { roundId: 13, count: 2, miners: [minerRound(13, OTHER_WALLET), minerRound(13, WALLET, { solBack: 60_000 })] }));
    await nc.flush();
    const events = await readEvents(res.body!, 3);
    expect(events).toEqual([
      { event: 'round', id: '12', data: minerRound(12) },
      { event: 'deploy', id: undefined, data: deploy },
      { event: 'round', id: '13', data: minerRound(13, WALLET, { solBack: 60_000 }) },
    ]);
  });
});
