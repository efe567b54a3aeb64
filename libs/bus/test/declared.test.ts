import { COMMANDS, commandsServedBy, natsNames, type Service } from '@gridlab/contracts';
import { InputError, UnavailableError } from '@gridlab/errors';
import { createLogger } from '@gridlab/logger';
import { testNamespace } from '@gridlab/testing';
import { connectBus, sendCommand, serveDeclared, stopServing, type CommandHandlers, type NatsConnection } from '../src';

const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
const logger = createLogger({ service: 'test', silent: true });
let nc: NatsConnection;

const unused = (): Promise<never> => Promise.reject(new Error('not called in this test'));

beforeAll(async () => {
  nc = await connectBus({ servers: ns.natsUrl, name: 'declared-test', logger });
});

afterAll(async () => {
  await nc.drain();
  await ns.cleanup();
});

describe('the NATS table', () => {
  it('gives every declared command a server whose queue group answers all of its commands', () => {
    for (const [name, spec] of Object.entries(COMMANDS)) {
      expect([name, commandsServedBy(spec.server as Service)]).toEqual([name, expect.arrayContaining([name])]);
    }
    expect(new Set(commandsServedBy('billing').map((name) => COMMANDS[name].queue))).toEqual(new Set(['billing']));
  });
});

describe('serveDeclared and sendCommand', () => {
  const billing: CommandHandlers<'billing'> = {
    pricing: unused,
    subscribeStart: unused,
    subscribeComplete: unused,
    reissueStart: unused,
    reissueComplete: unused,
    keyRevoke: (r) => Promise.resolve({ revoked: r.reason === 'key_sharing' }),
    sessionEnd: (r) => Promise.resolve({ subscriberId: r.subscriberId, epoch: r.epoch + 1 }),
  };

  it('refuses a service that does not serve a command the table gives it', () => {
    const { sessionEnd: _, ...missing } = billing;
    expect(() => serveDeclared(nc, names, 'billing', missing as unknown as CommandHandlers<'billing'>, logger)).toThrow(/missing sessionEnd/);
  });

  it('refuses a handler for a command the table gives another service', () => {
    const extra = { ...billing, leaderboardGet: unused } as CommandHandlers<'billing'>;
    expect(() => serveDeclared(nc, names, 'billing', extra, logger)).toThrow(/not declared for it leaderboardGet/);
  });

  it('answers a declared command on its subject, both ends checking the table schemas', async () => {
    const subs = serveDeclared(nc, names, 'billing', billing, logger);
    try {
      expect(await sendCommand(nc, names, 'sessionEnd', { subscriberId: 'sub_1111111111111111111111', epoch: 4 }, { timeoutMs: 2000 })).toEqual({ subscriberId: 'sub_1111111111111111111111', epoch: 5 });
      const keyHash = 'ab'.repeat(32);
      expect(await sendCommand(nc, names, 'keyRevoke', { keyHash, reason: 'key_sharing' }, { timeoutMs: 2000 })).toEqual({ revoked: true });
    } finally {
      subs.forEach((s) => s.unsubscribe());
    }
  });

  it('never sends a request that breaks its contract: the caller is told, not a server', async () => {
    // No server is running: a request that left would fail as unavailable.
    const bad = sendCommand(nc, names, 'keyRevoke', { keyHash: 'not-hex', reason: 'key_sharing' }, { timeoutMs: 2000 });
    await expect(bad).rejects.toBeInstanceOf(InputError);
    await expect(bad).rejects.toThrow(/invalid key revoke request: \/keyHash/);
    await expect(sendCommand(nc, names, 'keyRevoke', { keyHash: 'ab'.repeat(32), reason: 'key_sharing' }, { timeoutMs: 2000 })).rejects.toBeInstanceOf(UnavailableError);
  });

  it('stops serving: answers the commands already taken, then takes no more', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow: CommandHandlers<'billing'> = { ...billing, sessionEnd: async (r) => (await held, { subscriberId: r.subscriberId, epoch: r.epoch + 1 }) };
    const subs = serveDeclared(nc, names, 'billing', slow, logger);
    const subscriberId = 'sub_2222222222222222222222';
    const taken = sendCommand(nc, names, 'sessionEnd', { subscriberId, epoch: 1 }, { timeoutMs: 5000 });
    // The request has reached the handler once its reply is awaited; a round trip makes sure.
    await nc.flush();
    await new Promise((r) => setTimeout(r, 50));
    let stopped = false;
    const stopping = stopServing(subs).then(() => (stopped = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await taken).toEqual({ subscriberId, epoch: 2 });
    await expect(sendCommand(nc, names, 'sessionEnd', { subscriberId, epoch: 1 }, { timeoutMs: 2000 })).rejects.toBeInstanceOf(UnavailableError);
  });
});
