/**
 * Billing end to end over real parts: devnet transactions, the billing process, two
 * gateway processes, PostgreSQL, Redis and NATS JetStream.
 */
import { connectBus, type NatsConnection } from '@gridlab/bus';
import { jetstreamManager } from '@nats-io/jetstream';
import { natsNames, subscribeMessage, type SubscriptionFact, type TierFact } from '@gridlab/contracts';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import { answersOk, closeWeb3Connection, createTestDatabase, freePort, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { signAsync } from '@noble/ed25519';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMint,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  mintTo,
} from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';

const SECRET = 'billing-test-secret-0123456789abcdef';
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const DECIMALS = 11;
const TOKEN = 10n ** 11n;
// 0.1 token a month below 3 active subscriptions, 0.2 from 3 on (a low threshold to cross in a test).
const LADDER = '0:0.1,3:0.2';
const MONTHLY = TOKEN / 10n;
/** PUBLIC_ORIGIN of the billing under test: the domain signed subscribe messages name. */
const ORIGIN = 'https://gridlab.test';

let devnet: Devnet;
let connection: Connection;
let db: TestDatabase;
let pool: Pool;
let nc: NatsConnection;
const ns = testNamespace();
const names = natsNames(ns.natsPrefix);
const processes: ServiceProcess[] = [];
let billingProcess: ServiceProcess;
let gateways: string[] = [];
const subscriptionFacts: SubscriptionFact[] = [];
const tierFacts: TierFact[] = [];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'warn',
    SOLANA_RPC_URL: devnet.rpcUrl,
    TREASURY_ADDRESS: devnet.treasury,
    TOKEN_MINT: devnet.tokenMint,
    PRICE_LADDER: LADDER,
    PUBLIC_ORIGIN: ORIGIN,
    EXPIRY_SWEEP_MS: '200',
    FACT_RELAY_MS: '200',
    ...extra,
  };
}

async function startGateway(extra: Record<string, string> = {}): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port), ...extra }), () => answersOk(`${url}/healthz`)));
  return url;
}

async function startBilling(extra: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const billing = await startService('services/billing/src/main.ts', env({ OPS_PORT: String(port), ...extra }), () => answersOk(`http://127.0.0.1:${port}/readyz`));
  processes.push(billing);
  // Commands are subscribed right after readiness; wait until one is answered.
  while (!(await answersOk(`${gateways[0]}/api/v1/pricing`).catch(() => false))) await new Promise((r) => setTimeout(r, 100));
  return billing;
}

async function api(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, gateway = gateways[0]!) {
  const res = await fetch(`${gateway}/api/v1${path}`, {
    method,
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const paidGet = (key: string, gateway = gateways[0]!) =>
  fetch(`${gateway}/api/v1/rounds?limit=1`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);

/** A wallet with SOL for fees and `tokens` base units of the payment token. */
async function wallet(tokens = 10n * TOKEN): Promise<Keypair> {
  const w = Keypair.generate();
  await connection.confirmTransaction(await connection.requestAirdrop(w.publicKey, 2 * LAMPORTS_PER_SOL), 'confirmed');
  if (tokens > 0n) await devnet.mintTokens(w.publicKey.toBase58(), tokens);
  return w;
}

interface PaymentOptions {
  /** Signs and pays from its own token account. */
  payer: Keypair;
  amount: bigint;
  memo?: string | null;
  /** Owner of the receiving token account (default the treasury). */
  to?: PublicKey;
  mint?: PublicKey;
  /** Record the transaction even if it fails (the chain keeps failed transactions). */
  skipPreflight?: boolean;
}

/** Sends a TransferChecked (+ Memo) and waits for `confirmed`; returns its signature. */
async function pay(o: PaymentOptions): Promise<string> {
  const mint = o.mint ?? new PublicKey(devnet.tokenMint);
  const to = o.to ?? new PublicKey(devnet.treasury);
  const destination = getAssociatedTokenAddressSync(mint, to, true);
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(o.payer.publicKey, destination, to, mint),
    createTransferCheckedInstruction(getAssociatedTokenAddressSync(mint, o.payer.publicKey), mint, destination, o.payer.publicKey, o.amount, DECIMALS),
  );
  if (o.memo !== null && o.memo !== undefined) tx.add(new TransactionInstruction({ programId: MEMO, keys: [], data: Buffer.from(o.memo) }));
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  tx.recentBlockhash = blockhash;
  tx.feePayer = o.payer.publicKey;
  tx.sign(o.payer);
  const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: o.skipPreflight ?? false });
  await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
  return signature;
}

async function startSubscription(owner: Keypair, extra: Record<string, unknown> = {}) {
  const res = await api('POST', '/subscribe', { ownerPubkey: owner.publicKey.toBase58(), ...extra });
  expect(res.status).toBe(200);
  return res.body as { nonce: string; priceToken: number; instructions: { amountBaseUnits: string; to: string; memo: string; mint: string }; expiresAt: string };
}

/** The owner's signed fields of a PUT /subscribe (every Gridlab client signs). */
async function signed(owner: Keypair, nonce: string, txSig: string): Promise<{ message: string; signatureBase64: string }> {
  const message = subscribeMessage({ domain: ORIGIN, ownerPubkey: owner.publicKey.toBase58(), nonce, txSig, expiresAt: new Date(Date.now() + 600_000).toISOString() });
  return { message, signatureBase64: Buffer.from(await signAsync(new TextEncoder().encode(message), owner.secretKey.slice(0, 32))).toString('base64') };
}

/** The whole flow for `owner`: nonce, exact payment, signed redemption. */
async function subscribe(owner: Keypair, extra: Record<string, unknown> = {}) {
  const start = await startSubscription(owner, extra);
  const txSig = await pay({ payer: owner, amount: BigInt(start.instructions.amountBaseUnits), memo: start.nonce });
  const res = await api('PUT', '/subscribe', { nonce: start.nonce, txSig, ownerPubkey: owner.publicKey.toBase58(), ...(await signed(owner, start.nonce, txSig)) });
  expect([res.status, res.body]).toEqual([200, expect.objectContaining({ apiKey: expect.stringMatching(/^grid_/) })]);
  return { ...(res.body as { apiKey: string; subscriberId: string; paidUntil: string }), txSig, nonce: start.nonce };
}

/** A PUT /subscribe that fails with `status` and `code`; signed unless `sign` is false (an owner with a working key must sign). */
async function expectRejected(owner: Keypair, nonce: string, txSig: string, status: number, code: string, detail?: RegExp, sign = true) {
  const res = await api('PUT', '/subscribe', { nonce, txSig, ownerPubkey: owner.publicKey.toBase58(), ...(sign ? await signed(owner, nonce, txSig) : {}) });
  expect([res.status, res.body['code']]).toEqual([status, code]);
  expect(res.headers.get('content-type')).toContain('application/problem+json');
  if (detail !== undefined) expect(res.body['detail']).toMatch(detail);
  return res;
}

const months = (from: Date, n: number): number => {
  const d = new Date(from);
  d.setUTCMonth(d.getUTCMonth() + n);
  return d.getTime();
};

async function until<T>(fn: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: 5, seed: 11 });
  connection = new Connection(devnet.rpcUrl, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl });
  db = await createTestDatabase();
  pool = createPool(db.url);
  // The gateways' paid read endpoints need the indexer's (empty) tables.
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  nc = await connectBus({ servers: ns.natsUrl, name: 'billing-test', logger: createLogger({ service: 'test', silent: true }) });
  nc.subscribe(names.subjects.subscriptionChanged, { callback: (_e, m) => void subscriptionFacts.push(m.json()) });
  nc.subscribe(names.subjects.tierChanged, { callback: (_e, m) => void tierFacts.push(m.json()) });
  gateways = await Promise.all([startGateway(), startGateway()]);
  billingProcess = await startBilling();
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await nc.drain();
  closeWeb3Connection(connection);
  await devnet.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('pricing and nonces', () => {
  it('shows the ladder, the treasury and the mint', async () => {
    const res = await api('GET', '/pricing');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ activeSubs: 0, tokenNow: 0.1, nextThreshold: 3, tokenAtNextThreshold: 0.2, treasury: devnet.treasury, tokenMint: devnet.tokenMint });
  });

  it('locks the price into a 15-minute nonce: monthly, annual = 3x, referral ignored on annual', async () => {
    const owner = Keypair.generate();
    const before = Date.now();
    const monthly = await startSubscription(owner);
    expect(monthly).toEqual({
      nonce: expect.stringMatching(/^pay-[1-9A-HJ-NP-Za-km-z]{22}$/),
      priceToken: 0.1,
      instructions: { to: devnet.treasury, memo: monthly.nonce, amountBaseUnits: String(MONTHLY), mint: devnet.tokenMint },
      expiresAt: expect.any(String),
    });
    const ttl = Date.parse(monthly.expiresAt) - before;
    expect(ttl).toBeGreaterThan(14.9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000 + 1000);
    const annual = await startSubscription(owner, { plan: 'annual' });
    expect([annual.priceToken, annual.instructions.amountBaseUnits]).toEqual([0.3, String(3n * MONTHLY)]);
  });

  it('rejects bad bodies and unknown referral codes with 400 and the path', async () => {
    const owner = Keypair.generate().publicKey.toBase58();
    const cases: [unknown, string][] = [
      [{}, '/ownerPubkey'],
      [{ ownerPubkey: 'not base58 0OIl' }, '/ownerPubkey'],
      [{ ownerPubkey: '1'.repeat(44) }, '/ownerPubkey'],
      [{ ownerPubkey: owner, plan: 'weekly' }, '/plan'],
      [{ ownerPubkey: owner, extra: 1 }, '/extra'],
      [{ ownerPubkey: owner, requireSignature: 'yes' }, '/requireSignature'],
      [{ ownerPubkey: owner, referralCode: 'sub_1111111111111111111111' }, '/referralCode'],
    ];
    for (const [body, path] of cases) {
      const res = await api('POST', '/subscribe', body);
      expect([res.status, res.body['code']]).toEqual([400, 'invalid_request']);
      expect(res.body['errors']).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
  });
});

describe('subscribing with a real payment', () => {
  it('activates a monthly subscription whose key works on both gateways, and publishes the fact', async () => {
    const owner = await wallet();
    const before = new Date();
    const issued = await subscribe(owner);
    expect(issued.subscriberId).toMatch(/^sub_/);
    expect(Date.parse(issued.paidUntil)).toBeGreaterThanOrEqual(months(before, 1));
    expect(Date.parse(issued.paidUntil)).toBeLessThan(months(before, 1) + 60_000);
    expect(await paidGet(issued.apiKey, gateways[0])).toBe(200);
    expect(await paidGet(issued.apiKey, gateways[1])).toBe(200);
    const fact = await until(() => subscriptionFacts.find((f) => f.subscriberId === issued.subscriberId));
    expect(fact).toMatchObject({ action: 'activated', plan: 'monthly', paidUntil: issued.paidUntil, factId: `payment:${issued.txSig}` });
    expect(JSON.stringify(fact)).not.toContain(owner.publicKey.toBase58());
  });

  it('sells 12 months for an annual payment', async () => {
    const owner = await wallet();
    const before = new Date();
    const issued = await subscribe(owner, { plan: 'annual' });
    expect(Date.parse(issued.paidUntil)).toBeGreaterThanOrEqual(months(before, 12));
    expect(Date.parse(issued.paidUntil)).toBeLessThan(months(before, 12) + 60_000);
  });

  it("gives 10% off a monthly plan with an active subscriber's referral code", async () => {
    const referrer = await subscribe(await wallet());
    const owner = await wallet();
    const plain = await startSubscription(owner);
    const start = await startSubscription(owner, { referralCode: referrer.subscriberId });
    expect(start.instructions.amountBaseUnits).toBe(String((BigInt(plain.instructions.amountBaseUnits) * 9n) / 10n));
    const txSig = await pay({ payer: owner, amount: BigInt(start.instructions.amountBaseUnits), memo: start.nonce });
    const res = await api('PUT', '/subscribe', { nonce: start.nonce, txSig, ownerPubkey: owner.publicKey.toBase58(), ...(await signed(owner, start.nonce, txSig)) });
    expect(res.status).toBe(200);
  });

  it('renews: the period extends from paidUntil, a new key replaces the old one at once', async () => {
    const owner = await wallet();
    const first = await subscribe(owner);
    expect(await paidGet(first.apiKey)).toBe(200);
    const second = await subscribe(owner);
    expect(second.subscriberId).toBe(first.subscriberId);
    expect(Date.parse(second.paidUntil)).toBe(months(new Date(first.paidUntil), 1));
    expect(await paidGet(first.apiKey, gateways[0])).toBe(401);
    expect(await paidGet(first.apiKey, gateways[1])).toBe(401);
    expect(await paidGet(second.apiKey)).toBe(200);
    const fact = await until(() => subscriptionFacts.find((f) => f.factId === `payment:${second.txSig}`));
    expect(fact.action).toBe('renewed');
  });

  it('answers 402 after paidUntil, announces the expiry, and renewal through the same flow revives access', async () => {
    const owner = await wallet();
    const first = await subscribe(owner);
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() - interval '1 second' WHERE id = $1`, [first.subscriberId]);
    // A key never used before is not cached yet: the expiry applies at once.
    const reissued = await reissue(owner);
    const res = await fetch(`${gateways[0]}/api/v1/rounds`, { headers: { Authorization: `Bearer ${reissued.apiKey}` } });
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([402, 'subscription_expired']);
    const expired = await until(() => subscriptionFacts.find((f) => f.subscriberId === first.subscriberId && f.action === 'expired'));
    expect(expired.plan).toBe('monthly');
    const before = new Date();
    const renewed = await subscribe(owner);
    expect(Date.parse(renewed.paidUntil)).toBeGreaterThanOrEqual(months(before, 1));
    expect(await paidGet(renewed.apiKey)).toBe(200);
    expect((await until(() => subscriptionFacts.find((f) => f.factId === `payment:${renewed.txSig}`))).action).toBe('activated');
  });

  it('announces tier crossings up and down', async () => {
    const active = (await api('GET', '/pricing')).body['activeSubs'] as number;
    expect(active).toBeGreaterThanOrEqual(3);
    const up = await until(() => tierFacts.find((f) => f.direction === 'up'));
    expect(up).toMatchObject({ activeSubs: 3, tokenNow: 0.2 });
    expect((await api('GET', '/pricing')).body).toMatchObject({ tokenNow: 0.2, nextThreshold: null, tokenAtNextThreshold: null });
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() - interval '1 second'`);
    const down = await until(() => tierFacts.find((f) => f.direction === 'down'));
    expect(down).toMatchObject({ activeSubs: 0, tokenNow: 0.1 });
    // Billing's outbox publishes a fact until JetStream acknowledges it, so a plain
    // subscriber may see one twice under load; the stream keeps each fact once.
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(names.streams.billing);
    const stored: string[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(names.streams.billing, { seq }).catch(() => null);
      if (m?.subject === names.subjects.tierChanged) stored.push(m.json<TierFact>().factId);
    }
    expect(stored).toEqual([...new Set(tierFacts.map((f) => f.factId))]);
  });
});

describe('payment checks, each with its status and code', () => {
  let owner: Keypair;
  beforeAll(async () => {
    owner = await wallet();
  });

  it('rejects a transaction that failed on chain', async () => {
    const poor = await wallet(MONTHLY - 1n);
    const start = await startSubscription(poor);
    const txSig = await pay({ payer: poor, amount: MONTHLY, memo: start.nonce, skipPreflight: true });
    await expectRejected(poor, start.nonce, txSig, 422, 'payment_invalid', /transaction_failed/);
  });

  it('rejects under-payment, wrong recipient, missing or different memo', async () => {
    const cases: [Omit<PaymentOptions, 'payer'> | ((nonce: string) => Omit<PaymentOptions, 'payer'>), RegExp][] = [
      [(nonce) => ({ amount: MONTHLY - 1n, memo: nonce }), /treasury_credit/],
      [(nonce) => ({ amount: MONTHLY, memo: nonce, to: Keypair.generate().publicKey }), /treasury_credit/],
      [{ amount: MONTHLY, memo: null }, /memo/],
      [{ amount: MONTHLY, memo: 'pay-1111111111111111111111' }, /memo/],
    ];
    for (const [options, detail] of cases) {
      const start = await startSubscription(owner);
      const o = typeof options === 'function' ? options(start.nonce) : options;
      const txSig = await pay({ payer: owner, ...o });
      await expectRejected(owner, start.nonce, txSig, 422, 'payment_invalid', detail);
    }
  });

  it('rejects a payment in another token', async () => {
    const authority = await wallet(0n);
    const otherMint = await createMint(connection, authority, authority.publicKey, null, DECIMALS);
    const ata = getAssociatedTokenAddressSync(otherMint, owner.publicKey);
    await connection.sendTransaction(
      new Transaction().add(createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, ata, owner.publicKey, otherMint)),
      [authority],
    );
    await mintTo(connection, authority, otherMint, ata, authority, TOKEN);
    const start = await startSubscription(owner);
    const txSig = await pay({ payer: owner, amount: MONTHLY, memo: start.nonce, mint: otherMint });
    await expectRejected(owner, start.nonce, txSig, 422, 'payment_invalid', /treasury_credit/);
  });

  it('rejects a payment made and signed by another wallet', async () => {
    const other = await wallet();
    const start = await startSubscription(owner);
    const txSig = await pay({ payer: other, amount: MONTHLY, memo: start.nonce });
    await expectRejected(owner, start.nonce, txSig, 422, 'payment_invalid', /owner_signature/);
  });

  it('rejects a reused transaction, a consumed nonce, and a nonce of another owner', async () => {
    const issued = await subscribe(owner);
    const start = await startSubscription(owner);
    await expectRejected(owner, start.nonce, issued.txSig, 409, 'tx_already_used');
    // Unsigned: a signed PUT of a consumed nonce is a reclaim.
    await expectRejected(owner, issued.nonce, issued.txSig, 409, 'nonce_consumed', undefined, false);
    await expectRejected(Keypair.generate(), start.nonce, issued.txSig, 404, 'nonce_not_found');
    await expectRejected(owner, 'pay-1111111111111111111111', issued.txSig, 404, 'nonce_not_found');
  });

  it("redeems only with the owner's signature by default: an unsigned PUT (what a bot watching the treasury can send) answers 403 and consumes nothing", async () => {
    const fresh = await wallet();
    const start = await startSubscription(fresh);
    const txSig = await pay({ payer: fresh, amount: MONTHLY, memo: start.nonce });
    // The three fields are public on chain once the payment lands: a front-runner sends them first.
    await expectRejected(fresh, start.nonce, txSig, 403, 'signature_required', /requireSignature/, false);
    const { rows } = await pool.query(`SELECT consumed_at, require_signature FROM billing.payment_nonces WHERE nonce = $1`, [start.nonce]);
    expect(rows[0]).toEqual({ consumed_at: null, require_signature: true });
    // The owner's signed PUT redeems it; asking for an unsigned nonce is refused, naming the field.
    const mine = await api('PUT', '/subscribe', { nonce: start.nonce, txSig, ownerPubkey: fresh.publicKey.toBase58(), ...(await signed(fresh, start.nonce, txSig)) });
    expect(mine.status).toBe(200);
    const unsigned = await api('POST', '/subscribe', { ownerPubkey: (await wallet()).publicKey.toBase58(), requireSignature: false });
    expect([unsigned.status, unsigned.body['errors']]).toEqual([400, [expect.objectContaining({ path: '/requireSignature' })]]);
  });

  it('answers 410 for an expired nonce', async () => {
    const start = await startSubscription(owner);
    const txSig = await pay({ payer: owner, amount: MONTHLY, memo: start.nonce });
    await pool.query(`UPDATE billing.payment_nonces SET expires_at = now() - interval '1 second' WHERE nonce = $1`, [start.nonce]);
    await expectRejected(owner, start.nonce, txSig, 410, 'nonce_expired');
  });

  it('answers 409 payment_not_confirmed with Retry-After for a transaction the chain does not show yet', async () => {
    const start = await startSubscription(owner);
    const unknown = (await pay({ payer: await wallet(0n), amount: 0n, memo: 'x', skipPreflight: true })).replace(/^./, (c) => (c === '2' ? '3' : '2'));
    const res = await expectRejected(owner, start.nonce, unknown, 409, 'payment_not_confirmed');
    expect(res.headers.get('retry-after')).toBe('2');
  });

  it('issues exactly one key for 20 concurrent completions of one nonce with one signed body', async () => {
    const fresh = await wallet();
    const start = await startSubscription(fresh);
    const txSig = await pay({ payer: fresh, amount: MONTHLY, memo: start.nonce });
    const body = { nonce: start.nonce, txSig, ownerPubkey: fresh.publicKey.toBase58(), ...(await signed(fresh, start.nonce, txSig)) };
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => api('PUT', '/subscribe', body, gateways[i % 2])));
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    // A loser finds the nonce consumed, and the signature that consumed it cannot reclaim it.
    for (const r of results.filter((x) => x.status !== 200)) {
      expect([r.status, r.body['code']]).toEqual([409, expect.stringMatching(/^(nonce_consumed|tx_already_used|signature_used)$/)]);
    }
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM billing.payments WHERE tx_sig = $1`, [txSig]);
    expect(rows[0].n).toBe(1);
  });
});

async function reissue(owner: Keypair, signer: Keypair = owner) {
  const start = await api('POST', '/reissue', { ownerPubkey: owner.publicKey.toBase58() });
  expect(start.status).toBe(200);
  const { nonce, message, expiresAt } = start.body as { nonce: string; message: string; expiresAt: string };
  expect(message).toBe(`Gridlab API key reissue\ndomain: ${ORIGIN}\nowner: ${owner.publicKey.toBase58()}\nnonce: ${nonce}\nexpires: ${expiresAt}`);
  const signature = Buffer.from(await signAsync(new TextEncoder().encode(message), signer.secretKey.slice(0, 32))).toString('base64');
  const res = await api('PUT', '/reissue', { nonce, ownerPubkey: owner.publicKey.toBase58(), signatureBase64: signature });
  return { status: res.status, code: res.body['code'] as string | undefined, apiKey: res.body['apiKey'] as string, nonce, signature };
}

describe('reissue', () => {
  it('rotates the key with a wallet signature; the old key gets 401 at once on both gateways', async () => {
    const owner = await wallet();
    const issued = await subscribe(owner);
    expect(await paidGet(issued.apiKey, gateways[0])).toBe(200);
    expect(await paidGet(issued.apiKey, gateways[1])).toBe(200);
    const rotated = await reissue(owner);
    expect(rotated.status).toBe(200);
    expect(await paidGet(issued.apiKey, gateways[0])).toBe(401);
    expect(await paidGet(issued.apiKey, gateways[1])).toBe(401);
    expect(await paidGet(rotated.apiKey, gateways[1])).toBe(200);
  });

  it("rejects another wallet's signature, a bad signature and a replayed nonce", async () => {
    const owner = await wallet();
    await subscribe(owner);
    expect(await reissue(owner, Keypair.generate())).toMatchObject({ status: 422, code: 'signature_invalid' });
    const start = await api('POST', '/reissue', { ownerPubkey: owner.publicKey.toBase58() });
    const bad = await api('PUT', '/reissue', { nonce: start.body['nonce'], ownerPubkey: owner.publicKey.toBase58(), signatureBase64: 'AAAA' });
    expect([bad.status, bad.body['code']]).toEqual([422, 'signature_invalid']);
    const done = await reissue(owner);
    expect(done.status).toBe(200);
    const replay = await api('PUT', '/reissue', { nonce: done.nonce, ownerPubkey: owner.publicKey.toBase58(), signatureBase64: done.signature });
    expect([replay.status, replay.body['code']]).toEqual([409, 'nonce_consumed']);
  });

  it('answers 404 for a wallet without a subscription', async () => {
    const res = await api('POST', '/reissue', { ownerPubkey: Keypair.generate().publicKey.toBase58() });
    expect([res.status, res.body['code']]).toEqual([404, 'subscription_not_found']);
  });
});

describe('key sharing with policy revoke', () => {
  it('revokes a key used from more client addresses than allowed, on every gateway', async () => {
    const strict = await startGateway({ KEY_SHARING_POLICY: 'revoke', TRUSTED_PROXIES: '127.0.0.1' });
    const issued = await subscribe(await wallet());
    const from = (ip: string) =>
      fetch(`${strict}/api/v1/rounds?limit=1`, { headers: { Authorization: `Bearer ${issued.apiKey}`, 'X-Forwarded-For': ip } }).then((r) => r.status);
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) expect(await from(ip)).toBe(200);
    // A fourth address: the signal fires and billing revokes the key.
    await from('198.51.100.4');
    // Prompt on an idle machine (well under a second); the bound only stops a broken path from hanging.
    const deadline = Date.now() + 20_000;
    while ((await paidGet(issued.apiKey, gateways[0])) !== 401 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await paidGet(issued.apiKey, gateways[0])).toBe(401);
    expect(await paidGet(issued.apiKey, gateways[1])).toBe(401);
    const { rows } = await pool.query(`SELECT revoked_reason FROM billing.api_keys WHERE subscriber_id = $1 AND revoked_at IS NOT NULL`, [
      issued.subscriberId,
    ]);
    expect(rows).toEqual([{ revoked_reason: 'key_sharing' }]);
  });
});

describe('dependencies down', () => {
  it('answers 502 chain_unavailable when the RPC is unreachable', async () => {
    const owner = await wallet();
    const start = await startSubscription(owner);
    const txSig = await pay({ payer: owner, amount: MONTHLY, memo: start.nonce });
    // Replace the billing process with one whose RPC is a closed port.
    await Promise.all(processes.filter((p) => p === billingProcess).map((p) => p.stop()));
    const billing = await startBilling({ SOLANA_RPC_URL: `http://127.0.0.1:${await freePort()}`, SOLANA_RPC_TIMEOUT_MS: '500' });
    await expectRejected(owner, start.nonce, txSig, 502, 'chain_unavailable');
    await billing.stop();
  });

  it('answers 503 with Retry-After when no billing process answers', async () => {
    const res = await api('GET', '/pricing');
    expect([res.status, res.body['code']]).toEqual([503, 'service_unavailable']);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
