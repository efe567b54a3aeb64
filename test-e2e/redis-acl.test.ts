/**
 * Redis ACL users per service (issue 15), on a Redis of the test's own: each service's
 * real adapter works as its own user (the gateway's Lua gate and key cache, billing's
 * tombstones, lab-backtest's analytics cache, the readiness ping), and touching another
 * service's keys or a command it does not need is refused (NOPERM). The password travels
 * in REDIS_URL (redis://<user>:<password>@host:port), as the services read it.
 */
import { createLogger } from '@gridlab/logger';
import { keyCacheKeys, redisAclSetUser, REDIS_SERVICES, tombstoneKey, type RedisService } from '@gridlab/key-cache';
import { startRedisServer, type Engine } from '@gridlab/testing';
import { Redis } from 'ioredis';
import { RedisGate } from '../services/api-gateway/src/adapters/redis/redis-gate';
import { AnalyticsCache } from '../services/lab-backtest/src/adapters/redis/analytics-cache';

const PREFIX = 'acl:';
let server: Engine;
const clients = new Map<RedisService, Redis>();

function urlFor(service: RedisService): string {
  const url = new URL(server.url);
  url.username = service;
  url.password = `pw-${service}`;
  return url.toString();
}

beforeAll(async () => {
  server = await startRedisServer();
  const admin = new Redis(server.url);
  for (const s of REDIS_SERVICES) await admin.call('ACL', 'SETUSER', ...redisAclSetUser(s, `pw-${s}`, PREFIX));
  await admin.quit();
  for (const s of REDIS_SERVICES) clients.set(s, new Redis(urlFor(s), { maxRetriesPerRequest: 1 }));
});
afterAll(async () => {
  for (const c of clients.values()) c.disconnect();
  await server.stop();
});

const refused = async (run: () => Promise<unknown>): Promise<string> => run().then(() => 'allowed', (e: Error) => (/NOPERM/.test(e.message) ? 'refused' : e.message));

describe('Redis ACL users', () => {
  it("runs each service's own work as its own user", async () => {
    const gateway = clients.get('api-gateway')!;
    const gate = new RedisGate(gateway, { prefix: PREFIX, keyPolicy: { capacity: 10, refillPerSecond: 5 }, sharingWindowMs: 60_000, maxAddressesPerKey: 3 });
    const hash = Buffer.alloc(32, 7);
    expect(await gate.check(hash, '127.0.0.1', 1)).toEqual({ state: 'miss' });
    await gate.remember(hash, { subscriberId: 'sub-1', paidUntilMs: Date.now() + 60_000 });
    expect((await gate.check(hash, '127.0.0.1', 1)).state).toBe('ok');
    expect((await gate.takeForAddress({ capacity: 5, refillPerSecond: 1 }, '10.0.0.1')).allowed).toBe(true);
    expect(await gateway.ping()).toBe('PONG');

    await tombstoneKey(clients.get('billing')!, PREFIX, hash);
    expect((await gate.check(hash, '127.0.0.1', 1)).state).toBe('invalid');

    const cache = new AnalyticsCache(clients.get('lab-backtest')!, PREFIX, 60, createLogger({ service: 'test', silent: true }));
    await cache.set('k1', new TextEncoder().encode('{"a":1}'));
    expect(new TextDecoder().decode((await cache.get('k1'))!)).toBe('{"a":1}');
  });

  it("refuses another service's keys and commands a service does not run", async () => {
    const hash = Buffer.alloc(32, 9);
    expect(await refused(() => clients.get('lab-backtest')!.set(keyCacheKeys(PREFIX, hash).auth, 'forged'))).toBe('refused');
    expect(await refused(() => clients.get('api-gateway')!.get(`${PREFIX}lab:analytics:x`))).toBe('refused');
    expect(await refused(() => clients.get('billing')!.get(keyCacheKeys(PREFIX, hash).auth))).toBe('refused');
    expect(await refused(() => clients.get('api-gateway')!.flushall())).toBe('refused');
    expect(await refused(() => clients.get('api-gateway')!.set('other:thing', '1'))).toBe('refused');
    expect(await refused(() => clients.get('billing')!.keys('*'))).toBe('refused');
  });
});
