/**
 * RPC provider credentials never reach billing's output: a process started with a
 * SOLANA_RPC_URL carrying an API key in its query and a user and password in its user
 * info, and a DATABASE_URL with a password, logs at debug through start-up, a payment
 * verification that calls that RPC, and shutdown; every line names the hosts, none the
 * credentials.
 */
import { createServer, type Server } from 'node:http';
import { connectBus, requestCommand, type NatsConnection } from '@gridlab/bus';
import { commandValidators, natsNames } from '@gridlab/contracts';
import { createLogger } from '@gridlab/logger';
import { answersOk, createTestDatabase, freePort, startService, testNamespace, type ServiceProcess, type TestDatabase } from '@gridlab/testing';

const validateIssuedKey = commandValidators('subscribeComplete').result;
const validateSubscriptionStart = commandValidators('subscribeStart').result;

const SECRET = 'SECRET123';
const PASSWORD = 'pa55w0rdXYZ';
const OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

let db: TestDatabase;
const ns = testNamespace();
let rpc: Server;
let rpcHost: string;
let billing: ServiceProcess;
let nc: NatsConnection;
/** The requests the stand-in provider received. */
const reached: { url: string; authorization: string }[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // Stands in for the provider: whatever reaches it is refused (after noting how it was asked).
  rpc = createServer((req, res) => {
    reached.push({ url: req.url ?? '', authorization: req.headers.authorization ?? '' });
    res.writeHead(500).end();
  });
  const port = await freePort();
  await new Promise<void>((resolve) => rpc.listen(port, '127.0.0.1', resolve));
  rpcHost = `127.0.0.1:${port}`;
  // Trust authentication on the test server: the password is carried, never checked.
  const databaseUrl = new URL(db.url);
  databaseUrl.password = PASSWORD;
  const opsPort = await freePort();
  billing = await startService(
    'services/billing/src/main.ts',
    {
      DATABASE_URL: databaseUrl.toString(),
      NATS_PREFIX: ns.natsPrefix,
      REDIS_PREFIX: ns.redisPrefix,
      API_KEY_HMAC_SECRET: 'billing-test-secret-0123456789abcdef',
      LOG_LEVEL: 'debug',
      SOLANA_RPC_URL: `http://user:${PASSWORD}@${rpcHost}/?api-key=${SECRET}`,
      OPS_PORT: String(opsPort),
      // An unsigned completion is the shortest way to a payment check (the seed-compatible mode allows it).
      UNSIGNED_REDEMPTION: 'first_subscription',
    },
    () => answersOk(`http://127.0.0.1:${opsPort}/readyz`),
    30_000,
    { captureOutput: true },
  );
  nc = await connectBus({ servers: ns.natsUrl, name: 'log-redaction-test', logger: createLogger({ service: 'test', silent: true }) });
});

afterAll(async () => {
  await nc?.close();
  await billing?.stop();
  await new Promise((resolve) => rpc.close(resolve));
  await db.drop();
  await ns.cleanup();
});

describe('billing output', () => {
  it('names the RPC host and never its API key, user or password, nor the database password', async () => {
    // A payment verification: billing calls the RPC with the configured URL, which answers 500.
    const c = natsNames(ns.natsPrefix).commands;
    let started;
    for (let attempt = 0; ; attempt++) {
      // The command subscriptions follow readiness by a moment.
      try {
        started = await requestCommand(nc, c.subscribeStart, { ownerPubkey: OWNER }, validateSubscriptionStart, { timeoutMs: 5000 });
        break;
      } catch (error) {
        if (attempt > 50) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const completion = requestCommand(nc, c.subscribeComplete, { nonce: started.nonce, txSig: '5'.repeat(88), ownerPubkey: OWNER }, validateIssuedKey, { timeoutMs: 10_000 });
    await expect(completion).rejects.toMatchObject({ code: 'chain_unavailable' });
    await expect(completion.catch((error: Error) => error.message)).resolves.not.toContain(SECRET);
    // It reached the provider as the provider asks: the key in the query, the user info as Basic authorization
    // (fetch refuses a URL that carries credentials).
    expect(reached[0]).toEqual({ url: `/?api-key=${SECRET}`, authorization: `Basic ${Buffer.from(`user:${PASSWORD}`).toString('base64')}` });
    await billing.stop();

    const output = billing.output();
    const lines = output.split('\n').filter(Boolean);
    expect(lines.map((l) => (JSON.parse(l) as { message: string }).message)).toEqual(expect.arrayContaining(['billing ready', 'command answered', 'stopped']));
    const ready = lines.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l['message'] === 'billing ready')!;
    expect(ready['rpc']).toBe(`http://${rpcHost}/[redacted]`);
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain(PASSWORD);
    expect(output).not.toContain('api-key');
    expect(output).not.toContain('user:');
  });
});
