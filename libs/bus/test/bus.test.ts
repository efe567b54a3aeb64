import { commandValidators, eventValidator, natsNames } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { jetstreamManager } from '@nats-io/jetstream';
import { syntheticRounds, testNamespace } from '@gridlab/testing';
import { STREAM_MAX_AGE_MS, STREAM_MAX_BYTES } from '../src/streams';
import { consumeDurable, connectBus, decodeMessage, encodeMessage, ensureRoundsStream, jetStreamOf, openLiveBucket, publishDurable, type NatsConnection } from '../src';
import { DecodeError, HTTP_STATUS, InputError, UnavailableError } from '@gridlab/errors';
import { requestChunked, requestCommand, respondChunked, route, serveCommands } from '../src';

const validateRound = eventValidator('roundSettled');
const validateKeyRevokeReply = commandValidators('keyRevoke').result;

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

describe('bounded streams and consumers', () => {
  const logger = createLogger({ service: 'test', silent: true });

  it('streams have a max age and a max size', async () => {
    const info = await (await jetstreamManager(nc)).streams.info(names.streams.rounds);
    expect(info.config.max_age).toBe(STREAM_MAX_AGE_MS * 1_000_000);
    expect(info.config.max_bytes).toBe(STREAM_MAX_BYTES);
  });

  /** Waits until the durable has nothing pending or unacknowledged. */
  async function settledConsumer(durable: string): Promise<{ delivered: number; redelivered: number }> {
    const jsm = await jetstreamManager(nc);
    for (;;) {
      const info = await jsm.consumers.info(names.streams.rounds, durable);
      if (info.num_ack_pending === 0 && info.num_pending === 0 && info.delivered.consumer_seq > 0) {
        return { delivered: info.delivered.consumer_seq, redelivered: info.num_redelivered };
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('a permanent failure (a message breaking its contract) is terminated at once, never redelivered', async () => {
    const durable = 'test_permanent';
    let calls = 0;
    const outcomes: string[] = [];
    const onDelivery = (outcome: string, redelivered: boolean) => void outcomes.push(`${outcome}${redelivered ? ' (redelivered)' : ''}`);
    const stop = await consumeDurable(nc, { stream: names.streams.rounds, durable, subject: names.subjects.roundSettled, logger, retryDelayMs: 50, onDelivery }, async () => {
      calls++;
      throw new InputError('invalid round: /id must be integer');
    });
    await publishDurable(jetStreamOf(nc), names.subjects.roundSettled, encodeMessage(validateRound, syntheticRounds(1, { firstId: 901 })[0]!), 'poison-901');
    expect(await settledConsumer(durable)).toEqual({ delivered: 1, redelivered: 0 });
    expect(calls).toBe(1);
    expect(outcomes).toEqual(['term']);
    await stop();
  });

  it('a transient failure is redelivered up to maxDeliver times, then terminated', async () => {
    const durable = 'test_transient';
    let calls = 0;
    const outcomes: string[] = [];
    const onDelivery = (outcome: string, redelivered: boolean) => void outcomes.push(`${outcome}${redelivered ? ' (redelivered)' : ''}`);
    const stop = await consumeDurable(
      nc,
      { stream: names.streams.rounds, durable, subject: names.subjects.roundSettled, logger, retryDelayMs: 20, maxDeliver: 3, onDelivery },
      async () => {
        calls++;
        throw new UnavailableError('database down');
      },
    );
    await publishDurable(jetStreamOf(nc), names.subjects.roundSettled, encodeMessage(validateRound, syntheticRounds(1, { firstId: 902 })[0]!), 'flaky-902');
    expect((await settledConsumer(durable)).delivered).toBe(3);
    expect(calls).toBe(3);
    expect(outcomes).toEqual(['nak', 'nak (redelivered)', 'term (redelivered)']);
    await stop();
  });
});

describe('a reply that breaks its own contract', () => {
  const logger = createLogger({ service: 'test', silent: true });

  it('is a 500 with no internal text, never a 400, whether the server or the client finds it', async () => {
    const subject = `${ns.natsPrefix}.test.broken`;
    const subs = serveCommands(
      nc,
      'test',
      [route({ subject, request: (x: unknown) => x as Record<string, never>, result: validateKeyRevokeReply, handle: async () => ({ revoked: 'yes' }) as never })],
      logger,
    );
    const failure = await requestCommand(nc, subject, {}, validateKeyRevokeReply, { timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DecodeError);
    expect(HTTP_STATUS[(failure as DecodeError).kind]).toBe(500);
    expect((failure as DecodeError).message).not.toMatch(/revoked|must be/);
    for (const s of subs) s.unsubscribe();

    // A service replying with a result its requester's contract refuses (chunked replies too).
    const raw = `${ns.natsPrefix}.test.raw`;
    const sub = nc.subscribe(raw, {
      callback: (_e, msg) => {
        respondChunked(nc, msg, new TextEncoder().encode(JSON.stringify({ ok: true, result: { revoked: 1 } })));
      },
    });
    for (const request of [
      () => requestCommand(nc, raw, {}, validateKeyRevokeReply, { timeoutMs: 2000 }),
      () => requestChunked(nc, raw, {}, validateKeyRevokeReply, { timeoutMs: 2000 }),
    ]) {
      const error = await request().then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(DecodeError);
      expect(HTTP_STATUS[(error as DecodeError).kind]).toBe(500);
      expect(error).not.toBeInstanceOf(InputError);
    }
    sub.unsubscribe();
  });
});
