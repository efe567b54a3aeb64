/**
 * A new user's journey with nothing but the CLI and HTTP: a fresh wallet is funded on
 * the devnet, subscribes with a real token transfer, uses the key, rotates it.
 */
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPool } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import {
  answersOk,
  createTestDatabase,
  freePort,
  runCli,
  startService,
  testNamespace,
  type ServiceProcess,
  type TestDatabase,
  TEST_SESSION_SECRET,
} from '@gridlab/testing';
import { Keypair } from '@solana/web3.js';

const SECRET = 'e2e-journey-secret-0123456789abcdef!';
let devnet: Devnet;
let db: TestDatabase;
let gateway: string;
let dir: string;
const ns = testNamespace();
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: 20, seed: 21 });
  db = await createTestDatabase();
  dir = mkdtempSync(join(tmpdir(), 'gridlab-e2e-'));
  const env = {
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'warn',
    SOLANA_RPC_URL: devnet.rpcUrl,
    SOLANA_WS_URL: devnet.wsUrl,
    TREASURY_ADDRESS: devnet.treasury,
    TOKEN_MINT: devnet.tokenMint,
    SLOT_SECONDS: '0.02',
  };
  const [gatewayPort, billingPort, indexerPort] = await Promise.all([freePort(), freePort(), freePort()]);
  gateway = `http://127.0.0.1:${gatewayPort}`;
  const started = await Promise.all([
    startService('services/indexer/src/main.ts', { ...env, OPS_PORT: String(indexerPort) }, () => answersOk(`http://127.0.0.1:${indexerPort}/healthz`)),
    startService('services/billing/src/main.ts', { ...env, OPS_PORT: String(billingPort), PUBLIC_ORIGIN: gateway }, () => answersOk(`http://127.0.0.1:${billingPort}/readyz`)),
    startService('services/api-gateway/src/main.ts', { ...env, PORT: String(gatewayPort) }, () => answersOk(`${gateway}/api/v1/pricing`)),
  ]);
  processes.push(...started);
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await devnet.stop();
  await db.drop();
  await ns.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<Record<string, unknown>> {
  const { code, stdout, stderr } = await runCli(args, { GRIDLAB_API_URL: gateway, SOLANA_RPC_URL: devnet.rpcUrl, TOKEN_MINT: devnet.tokenMint });
  if (code !== 0) throw new Error(`gridlab ${args.join(' ')} exited ${code}: ${stderr}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

const live = (key: string) => fetch(`${gateway}/api/v1/live`, { headers: { Authorization: `Bearer ${key}` } });

describe('a fresh wallet becomes a working key with the CLI', () => {
  it('funds, subscribes, reads live data, rotates the key', async () => {
    const wallet = Keypair.generate();
    const keypairFile = join(dir, 'wallet.json');
    writeFileSync(keypairFile, JSON.stringify(Array.from(wallet.secretKey)));
    const owner = wallet.publicKey.toBase58();

    const funded = await cli('devnet', 'fund', '--owner', owner, '--tokens', '1', '--sol', '1');
    expect(funded).toMatchObject({ owner, tokens: '1', sol: 1 });

    const issued = await cli('subscribe', '--keypair', keypairFile);
    expect(issued).toEqual({ apiKey: expect.stringMatching(/^grid_/), subscriberId: expect.stringMatching(/^sub_/), paidUntil: expect.any(String) });
    // The CLI redeems with a wallet signature, so a front-runner could not keep the key.
    const pool = createPool(db.url);
    const { rows } = await pool.query(`SELECT consumed_signed FROM billing.payment_nonces WHERE owner_pubkey = $1`, [owner]).finally(() => pool.end());
    expect(rows).toEqual([{ consumed_signed: true }]);
    let res = await live(issued['apiKey'] as string);
    // The indexer may still be publishing its first snapshot.
    for (let i = 0; i < 100 && res.status === 503; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await live(issued['apiKey'] as string);
    }
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ deployed: expect.any(Array), count: expect.any(Array) });

    const rotated = await cli('reissue', '--keypair', keypairFile);
    expect(rotated['subscriberId']).toBe(issued['subscriberId']);
    expect((await live(issued['apiKey'] as string)).status).toBe(401);
    expect((await live(rotated['apiKey'] as string)).status).toBe(200);
  });
});
