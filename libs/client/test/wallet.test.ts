/**
 * @gridlab/client/wallet against the real suite: a fresh wallet pays with a real token
 * transfer on the devnet and redeems a key, then rotates it, with a Keypair and with a
 * wallet-adapter-shaped signer (what a browser wallet provides); and a look-alike site
 * relaying the real service's reissue gets no signature.
 */
import { runMigrations } from '@gridlab/db';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, freePort, runCli, startService, startTcpProxy, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { Keypair, type Transaction } from '@solana/web3.js';
import { signAsync } from '@noble/ed25519';
import { GridlabApiError, GridlabClient } from '../src/index';
import { GridlabSigningError, reissue, subscribe, type WalletSigner } from '../src/wallet';

const SECRET = 'client-wallet-secret-0123456789abcdef';
let devnet: Devnet;
let db: TestDatabase;
let gateway: string;
const ns = testNamespace();
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: 5, seed: 31 });
  db = await createTestDatabase();
  // The table GET /rounds reads (the indexer creates it in a running suite).
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
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
  const [gatewayPort, billingPort] = await Promise.all([freePort(), freePort()]);
  gateway = `http://127.0.0.1:${gatewayPort}`;
  processes.push(
    ...(await Promise.all([
      startService('services/billing/src/main.ts', { ...env, OPS_PORT: String(billingPort), PUBLIC_ORIGIN: gateway }, () => answersOk(`http://127.0.0.1:${billingPort}/readyz`)),
      startService('services/api-gateway/src/main.ts', { ...env, PORT: String(gatewayPort) }, () => answersOk(`${gateway}/api/v1/pricing`)),
    ])),
  );
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await devnet?.stop();
  await db?.drop();
  await ns.cleanup();
});

async function fund(owner: string): Promise<void> {
  const { code, stderr } = await runCli(['devnet', 'fund', '--owner', owner, '--tokens', '1', '--sol', '1', '--rpc', devnet.rpcUrl, '--mint', devnet.tokenMint]);
  if (code !== 0) throw new Error(stderr);
}

/**
 * The key is served by the paid API: GET /rounds answers (the indexer's schema is migrated,
 * empty). A 401 or 402 is a key that does not work; any other failure is the test's error,
 * never taken for a working key.
 */
async function keyWorks(client: GridlabClient): Promise<boolean> {
  const error = await client.rounds({ limit: 1 }, { retry: false }).then(
    () => null,
    (e: unknown) => e,
  );
  if (error === null) return true;
  if (error instanceof GridlabApiError && (error.status === 401 || error.status === 402)) return false;
  throw error;
}

/** A wallet-adapter-shaped signer holding its own key (what a browser wallet provides), counting what it signs. */
function walletAdapter(): { adapter: WalletSigner; signed: { transactions: number; messages: number } } {
  const secret = Keypair.generate();
  const signed = { transactions: 0, messages: 0 };
  const adapter: WalletSigner = {
    publicKey: secret.publicKey,
    signTransaction: async (tx: Transaction) => {
      signed.transactions++;
      tx.partialSign(secret);
      return tx;
    },
    signMessage: async (message: Uint8Array) => {
      signed.messages++;
      return signAsync(message, secret.secretKey.slice(0, 32));
    },
  };
  return { adapter, signed };
}

describe('wallet flows with a real devnet payment', () => {
  it('subscribes with a Keypair, then rotates the key (the old one stops working)', async () => {
    const wallet = Keypair.generate();
    await fund(wallet.publicKey.toBase58());
    const client = new GridlabClient({ baseUrl: gateway });
    const payments: string[] = [];
    const issued = await subscribe(client, { signer: wallet, connection: devnet.rpcUrl, onPayment: (p) => payments.push(p.txSig) });
    expect(issued).toEqual({ apiKey: expect.stringMatching(/^grid_/), subscriberId: expect.stringMatching(/^sub_/), paidUntil: expect.any(String) });
    expect(payments).toHaveLength(1);
    expect(client.apiKey).toBe(issued.apiKey);
    expect(await keyWorks(client)).toBe(true);

    const old = new GridlabClient({ baseUrl: gateway, apiKey: issued.apiKey });
    const rotated = await reissue(client, { signer: wallet });
    expect(rotated.subscriberId).toBe(issued.subscriberId);
    expect(rotated.apiKey).not.toBe(issued.apiKey);
    expect(await keyWorks(old)).toBe(false);
    expect(await keyWorks(client)).toBe(true);
  });

  it("refuses to sign a reissue a look-alike site relays from the real service: nothing signed, the owner's key keeps working", async () => {
    const { adapter, signed } = walletAdapter();
    await fund(adapter.publicKey.toBase58());
    const owner = new GridlabClient({ baseUrl: gateway });
    await subscribe(owner, { signer: adapter, connection: devnet.rpcUrl });
    expect(signed.messages).toBe(1);
    // The look-alike site passes every request through to the real gateway: its POST
    // /reissue answers with the real service's message, which names the real site.
    const url = new URL(gateway);
    const lookalike = await startTcpProxy(url.hostname, Number(url.port));
    try {
      const phished = new GridlabClient({ baseUrl: `http://127.0.0.1:${lookalike.port}` });
      await expect(reissue(phished, { signer: adapter })).rejects.toBeInstanceOf(GridlabSigningError);
      expect(signed.messages).toBe(1);
      expect(phished.apiKey).toBeUndefined();
      expect(await keyWorks(owner)).toBe(true);
    } finally {
      await lookalike.close();
    }
  });

  it('subscribes with a wallet-adapter signer that holds its own key', async () => {
    const { adapter, signed } = walletAdapter();
    await fund(adapter.publicKey.toBase58());
    const client = new GridlabClient({ baseUrl: gateway });
    const issued = await subscribe(client, { signer: adapter, connection: devnet.rpcUrl, plan: 'monthly' });
    expect(issued.apiKey).toMatch(/^grid_/);
    expect(signed).toEqual({ transactions: 1, messages: 1 });
    expect(await keyWorks(client)).toBe(true);
  });
});
