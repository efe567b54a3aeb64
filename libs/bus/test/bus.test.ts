import { natsNames, validateRound } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { jetstreamManager } from '@nats-io/jetstream';
import { syntheticRounds, testNamespace } from '@gridlab/testing';
import { connectBus, decodeMessage, encodeMessage, ensureRoundsStream, jetStreamOf, openLiveBucket, publishDurable, type NatsConnection } from '../src';

const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
let nc: NatsConnection;

beforeAll(async () => {
  nc = await connectBus({ servers: ns.natsUrl, name: 'bus-test', logger: createLogger({ service: 'test', silent: true }) });
  await ensureRoundsStream(nc, names);
  await ensureRoundsStream(nc, names); // idempotent
});

afterAll(async () => {
  await nc.drain();
  await ns.cleanup();
});

describe('bus', () => {
  it('stores a settled round once even when published twice with the same Nats-Msg-Id', async () => {
    const [round] = syntheticRounds(1, { firstId: 77 });
    const js = jetStreamOf(nc);
    const data = encodeMessage(validateRound, round!);
    const first = await publishDurable(js, names.subjects.roundSettled, data, '77', 'corr-1');
    const second = await publishDurable(js, names.subjects.roundSettled, data, '77');
    expect(first.duplicate).toBe(false);
    expect(second.duplicate).toBe(true);
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(names.streams.rounds);
    expect(info.state.messages).toBe(1);
    const stored = await jsm.streams.getMessage(names.streams.rounds, { seq: first.seq });
    expect(decodeMessage(validateRound, stored!.data)).toEqual(round);
    expect(stored!.header?.get('Gridlab-Correlation-Id')).toBe('corr-1');
  });

  it('refuses to encode a message that breaks its contract', () => {
    const [round] = syntheticRounds(1);
    expect(() => encodeMessage(validateRound, { ...round!, winningSquare: 25 })).toThrow(/winningSquare/);
  });

  it('keeps only the latest value in the live bucket', async () => {
    const kv = await openLiveBucket(nc, names);
    await kv.put('snapshot', new TextEncoder().encode('{"n":1}'));
    await kv.put('snapshot', new TextEncoder().encode('{"n":2}'));
    const entry = await kv.get('snapshot');
    expect(entry?.string()).toBe('{"n":2}');
    const status = await kv.status();
    expect(status.history).toBe(1);
  });
});
