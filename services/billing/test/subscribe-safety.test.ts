/**
 * Over real parts (devnet payments, the billing process, two
 * gateway processes, PostgreSQL, Redis, NATS): a front-runner who redeems a payment
 * first loses the key to the owner's signed PUT, and a payment committed without a reply
 * reaching the customer (billing killed with SIGKILL) is redeemed again by a signed retry
 * without paying twice.
 */
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { answersOk, closeWeb3Connection, createTestDatabase, freePort, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { subscribeMessage } from '@gridlab/contracts';
import { signAsync } from '@noble/ed25519';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';

const SECRET = 'billing-safety-secret-0123456789abcdef';
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const DECIMALS = 11;
const TOKEN = 10n ** 11n;
/** PUBLIC_ORIGIN of the billing under test: the domain signed subscribe messages name. */
const ORIGIN = 'https://gridlab.test';

let devnet: Devnet;
let connection: Connection;
let db: TestDatabase;
let pool: Pool;
const ns = testNamespace();
const processes: ServiceProcess[] = [];
let billing: ServiceProcess;
let gateways: string[] = [];

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
    PRICE_LADDER: '0:0.1',
    // The gateway gives up on billing quickly, so a stalled redemption answers 504.
    COMMAND_TIMEOUT_MS: '1500',
    EXPIRY_SWEEP_MS: '200',
    FACT_RELAY_MS: '200',
    PUBLIC_ORIGIN: ORIGIN,
    ...extra,
  };
}

async function startGateway(): Promise<string> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  processes.push(await startService('services/api-gateway/src/main.ts', env({ PORT: String(port) }), () => answersOk(`${url}/healthz`)));
  return url;
}

async function startBilling(): Promise<ServiceProcess> {
  const port = await freePort();
  // The seed-compatible mode, whose unsigned redemptions these tests attack (the default refuses them: billing.test.ts).
  const started = await startService('services/billing/src/main.ts', env({ OPS_PORT: String(port), UNSIGNED_REDEMPTION: 'first_subscription' }), () =>
    answersOk(`http://127.0.0.1:${port}/readyz`),
  );
  processes.push(started);
  while (!(await answersOk(`${gateways[0]}/api/v1/pricing`).catch(() => false))) await new Promise((r) => setTimeout(r, 100));
  return started;
}

async function api(method: 'POST' | 'PUT', path: string, body: unknown, gateway = gateways[0]!) {
  const res = await fetch(`${gateway}/api/v1${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: (await res.json()) as Record<string, any> };
}

const paidGet = (key: string, gateway: string) =>
  fetch(`${gateway}/api/v1/rounds?limit=1`, { headers: { Authorization: `Bearer ${key}` } }).then((r) => r.status);

async function wallet(): Promise<Keypair> {
  const w = Keypair.generate();
  await connection.confirmTransaction(await connection.requestAirdrop(w.publicKey, 2 * LAMPORTS_PER_SOL), 'confirmed');
  await devnet.mintTokens(w.publicKey.toBase58(), 10n * TOKEN);
  return w;
}

/** The subscriber's paid_until as the API writes it (ISO 8601). */
const paidUntilOf = async (ownerPubkey: string): Promise<string> =>
  ((await pool.query<{ paid_until: Date }>(`SELECT paid_until FROM billing.subscribers WHERE owner_pubkey = $1`, [ownerPubkey])).rows[0]!.paid_until).toISOString();

const tokenBalance = async (owner: Keypair): Promise<bigint> =>
  BigInt((await connection.getTokenAccountBalance(getAssociatedTokenAddressSync(new PublicKey(devnet.tokenMint), owner.publicKey))).value.amount);

/** POST /subscribe, then the exact TransferChecked + Memo payment, confirmed. */
async function payFor(owner: Keypair, extra: Record<string, unknown> = {}): Promise<{ nonce: string; txSig: string; ownerPubkey: string }> {
  const ownerPubkey = owner.publicKey.toBase58();
  const start = await api('POST', '/subscribe', { ownerPubkey, ...extra });
  expect(start.status).toBe(200);
  const mint = new PublicKey(devnet.tokenMint);
  const to = new PublicKey(devnet.treasury);
  const destination = getAssociatedTokenAddressSync(mint, to, true);
  const tx = new Transaction().add(
    createAssociatedTokenAccountIdempotentInstruction(owner.publicKey, destination, to, mint),
    createTransferCheckedInstruction(
      getAssociatedTokenAddressSync(mint, owner.publicKey),
      mint,
      destination,
      owner.publicKey,
      BigInt(start.body['instructions'].amountBaseUnits),
      DECIMALS,
    ),
    new TransactionInstruction({ programId: MEMO, keys: [], data: Buffer.from(start.body['nonce'] as string) }),
  );
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  tx.recentBlockhash = blockhash;
  tx.feePayer = owner.publicKey;
  tx.sign(owner);
  const signature = await connection.sendRawTransaction(tx.serialize());
  await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
  return { nonce: start.body['nonce'] as string, txSig: signature, ownerPubkey };
}

/** The signed fields of a PUT /subscribe: the subscribe message for `nonce` and `txSig` and its signature by `signer`. */
async function sign(
  signer: Keypair,
  ownerPubkey: string,
  nonce: string,
  txSig: string,
  o: { domain?: string; expiresAt?: Date } = {},
): Promise<{ message: string; signatureBase64: string }> {
  const expiresAt = (o.expiresAt ?? new Date(Date.now() + 10 * 60_000)).toISOString();
  const message = subscribeMessage({ domain: o.domain ?? ORIGIN, ownerPubkey, nonce, txSig, expiresAt });
  return { message, signatureBase64: Buffer.from(await signAsync(new TextEncoder().encode(message), signer.secretKey.slice(0, 32))).toString('base64') };
}

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: 2, seed: 12 });
  connection = new Connection(devnet.rpcUrl, { commitment: 'confirmed', wsEndpoint: devnet.wsUrl });
  db = await createTestDatabase();
  pool = createPool(db.url);
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  gateways = await Promise.all([startGateway(), startGateway()]);
  billing = await startBilling();
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  closeWeb3Connection(connection);
  await devnet.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('front-running PUT /subscribe', () => {
  it("on a first subscription (no working key, no requireSignature) an attacker's unsigned PUT gets a key; the owner's signed PUT takes it back on every gateway", async () => {
    const owner = await wallet();
    const paid = await payFor(owner);

    // Everything in the body is public on chain: the attacker redeems first.
    const stolen = await api('PUT', '/subscribe', paid, gateways[0]);
    expect(stolen.status).toBe(200);
    for (const g of gateways) expect(await paidGet(stolen.body['apiKey'], g)).toBe(200);
    // The honest client that does not sign finds the nonce used.
    expect((await api('PUT', '/subscribe', paid, gateways[1])).body['code']).toBe('nonce_consumed');

    // The attacker cannot sign for the owner.
    const forged = await api('PUT', '/subscribe', { ...paid, ...(await sign(Keypair.generate(), paid.ownerPubkey, paid.nonce, paid.txSig)) });
    expect([forged.status, forged.body['code']]).toEqual([422, 'signature_invalid']);

    const mine = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) }, gateways[1]);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual({ apiKey: expect.stringMatching(/^grid_/), subscriberId: stolen.body['subscriberId'], paidUntil: stolen.body['paidUntil'] });
    expect(mine.body['apiKey']).not.toBe(stolen.body['apiKey']);
    for (const g of gateways) {
      expect(await paidGet(stolen.body['apiKey'], g)).toBe(401);
      expect(await paidGet(mine.body['apiKey'], g)).toBe(200);
    }
    // One payment, one period: taking the key back did not extend or charge anything.
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM billing.payments WHERE nonce = $1`, [paid.nonce]);
    expect(rows[0].n).toBe(1);
  });

  it("a signed redemption seen by someone else cannot be replayed as a reclaim: 409 signature_used, the owner's key keeps working", async () => {
    const owner = await wallet();
    const paid = await payFor(owner, { requireSignature: true });
    const signed = await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig);
    const mine = await api('PUT', '/subscribe', { ...paid, ...signed });
    expect(mine.status).toBe(200);
    // The body as a proxy log or a support ticket shows it, sent again within its hour.
    const replay = await api('PUT', '/subscribe', { ...paid, ...signed }, gateways[1]);
    expect([replay.status, replay.body['code']]).toEqual([409, 'signature_used']);
    expect(replay.body['apiKey']).toBeUndefined();
    for (const g of gateways) expect(await paidGet(mine.body['apiKey'], g)).toBe(200);
    // The owner, and only the owner, can still take the key back, with a new signature.
    const reclaimed = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) });
    expect(reclaimed.status).toBe(200);
    for (const g of gateways) expect(await paidGet(mine.body['apiKey'], g)).toBe(401);
  });

  it('a signature over another nonce, or a consumed nonce named with another transaction, takes nothing back', async () => {
    const owner = await wallet();
    const first = await payFor(owner);
    const second = await payFor(owner);
    expect((await api('PUT', '/subscribe', first)).status).toBe(200);
    const wrongNonce = await api('PUT', '/subscribe', { ...first, ...(await sign(owner, first.ownerPubkey, second.nonce, first.txSig)) });
    expect([wrongNonce.status, wrongNonce.body['code']]).toEqual([422, 'signature_invalid']);
    const otherTx = await api('PUT', '/subscribe', { ...first, txSig: second.txSig, ...(await sign(owner, first.ownerPubkey, first.nonce, second.txSig)) });
    expect([otherTx.status, otherTx.body['code']]).toEqual([409, 'nonce_consumed']);
  });

  it('a signed first redemption is recorded as signed; past the reclaim window a signed retry answers 410', async () => {
    const owner = await wallet();
    const paid = await payFor(owner);
    const signed = await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig);
    expect((await api('PUT', '/subscribe', { ...paid, ...signed })).status).toBe(200);
    const { rows } = await pool.query(`SELECT consumed_signed FROM billing.payment_nonces WHERE nonce = $1`, [paid.nonce]);
    expect(rows[0].consumed_signed).toBe(true);
    await pool.query(`UPDATE billing.payment_nonces SET consumed_at = now() - interval '2 days' WHERE nonce = $1`, [paid.nonce]);
    const late = await api('PUT', '/subscribe', { ...paid, ...signed });
    expect([late.status, late.body['code']]).toEqual([410, 'reclaim_expired']);
  });
});

describe('a paid key is never lost after the commit', () => {
  it('billing killed with SIGKILL after committing: a newly signed retry returns a working key without paying twice', async () => {
    const owner = await wallet();
    const paid = await payFor(owner);
    const balanceAfterPaying = await tokenBalance(owner);
    const signed = await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig);

    // Hold billing inside its redemption (the payments table locked) until the gateway gives up.
    const blocker = await pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE billing.payments IN EXCLUSIVE MODE');
    const stalled = await api('PUT', '/subscribe', { ...paid, ...signed });
    expect([stalled.status, stalled.body['code']]).toEqual([504, 'timeout']);
    // Let billing commit (its reply goes nowhere), then kill it before anything else.
    await blocker.query('COMMIT');
    blocker.release();
    for (;;) {
      const { rows } = await pool.query(`SELECT consumed_at FROM billing.payment_nonces WHERE nonce = $1`, [paid.nonce]);
      if (rows[0].consumed_at !== null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await billing.stop('SIGKILL');
    const committedUntil = await paidUntilOf(paid.ownerPubkey);
    // Paid, committed, and the customer holds no key.
    const { rows: keys } = await pool.query(
      `SELECT count(*)::int AS n FROM billing.api_keys k JOIN billing.subscribers s ON s.id = k.subscriber_id WHERE s.owner_pubkey = $1`,
      [paid.ownerPubkey],
    );
    expect(keys[0].n).toBe(1);

    billing = await startBilling();
    // The body that redeemed the payment cannot take it back (whoever saw it could replay it):
    // the owner signs again, as the client does after a 503/504.
    const replayed = await api('PUT', '/subscribe', { ...paid, ...signed }, gateways[1]);
    expect([replayed.status, replayed.body['code']]).toEqual([409, 'signature_used']);
    const retried = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) }, gateways[1]);
    expect(retried.status).toBe(200);
    for (const g of gateways) expect(await paidGet(retried.body['apiKey'], g)).toBe(200);
    // A reclaim is made once: a second one is refused and the key the first returned keeps working
    // (a reply lost again is recovered with /reissue).
    const again = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) }, gateways[0]);
    expect([again.status, again.body['code']]).toEqual([409, 'reclaim_used']);
    for (const g of gateways) expect(await paidGet(retried.body['apiKey'], g)).toBe(200);
    // Paid once and credited once: one payment row, and neither retry extended the period the
    // commit bought (a retry that redeemed the payment again would have added a month). The
    // customer's balance shows no second transfer was asked of them.
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM billing.payments WHERE nonce = $1`, [paid.nonce]);
    expect(rows[0].n).toBe(1);
    expect(retried.body['paidUntil']).toBe(committedUntil);
    expect(await paidUntilOf(paid.ownerPubkey)).toBe(committedUntil);
    expect(await tokenBalance(owner)).toBe(balanceAfterPaying);
  });
});

describe('a paid key is never lost: SIGKILL between the commit and the reply', () => {
  it('a renewal committed but never answered (billing killed while delivering the old key\'s revocation) is redeemed by a newly signed retry', async () => {
    const owner = await wallet();
    const first = await payFor(owner);
    const k0 = await api('PUT', '/subscribe', { ...first, ...(await sign(owner, first.ownerPubkey, first.nonce, first.txSig)) });
    expect(k0.status).toBe(200);
    const renewal = await payFor(owner);
    const balanceAfterPaying = await tokenBalance(owner);
    const signed = await sign(owner, renewal.ownerPubkey, renewal.nonce, renewal.txSig);

    let committedUntil = '';
    // After its commit billing delivers the replaced key's revocation, then replies; make that delivery hang.
    await pool.query(`CREATE FUNCTION billing.test_stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$`);
    await pool.query(`CREATE TRIGGER test_stall BEFORE UPDATE ON billing.revocations FOR EACH ROW EXECUTE FUNCTION billing.test_stall()`);
    try {
      const answer = api('PUT', '/subscribe', { ...renewal, ...signed });
      // Committed (the nonce is consumed) and stuck after the commit, before the reply.
      for (;;) {
        const consumed = (await pool.query(`SELECT consumed_at FROM billing.payment_nonces WHERE nonce = $1`, [renewal.nonce])).rows[0].consumed_at;
        const stuck = await pool.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'UPDATE billing.revocations%' AND state = 'active'`);
        if (consumed !== null && stuck.rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await billing.stop('SIGKILL');
      expect([503, 504]).toContain((await answer).status);
      committedUntil = await paidUntilOf(renewal.ownerPubkey);
    } finally {
      await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'UPDATE billing.revocations%'`);
      await pool.query(`DROP TRIGGER test_stall ON billing.revocations`);
      await pool.query(`DROP FUNCTION billing.test_stall()`);
    }
    // Paid and committed: the renewal's key exists, the customer never saw it.
    const { rows: payments } = await pool.query(`SELECT count(*)::int AS n FROM billing.payments WHERE nonce = $1`, [renewal.nonce]);
    expect(payments[0].n).toBe(1);

    billing = await startBilling();
    // Signed again: the body that redeemed the renewal is refused as a reclaim (signature_used).
    const retried = await api('PUT', '/subscribe', { ...renewal, ...(await sign(owner, renewal.ownerPubkey, renewal.nonce, renewal.txSig)) }, gateways[1]);
    expect(retried.status).toBe(200);
    expect(new Date(retried.body['paidUntil']).getTime()).toBeGreaterThan(new Date(k0.body['paidUntil']).getTime());
    // The renewal's period, as committed, and not extended again by the retry.
    expect(retried.body['paidUntil']).toBe(committedUntil);
    for (const g of gateways) expect(await paidGet(retried.body['apiKey'], g)).toBe(200);
    // The replaced key's revocation, left pending by the kill, is delivered by the restarted billing's relay.
    while ((await paidGet(k0.body['apiKey'], gateways[0]!)) !== 401) await new Promise((r) => setTimeout(r, 100));
    expect(await paidGet(k0.body['apiKey'], gateways[1]!)).toBe(401);
    // Paid once, credited once.
    expect((await pool.query(`SELECT count(*)::int AS n FROM billing.payments WHERE nonce = $1`, [renewal.nonce])).rows[0].n).toBe(1);
    expect(await paidUntilOf(renewal.ownerPubkey)).toBe(committedUntil);
    expect(await tokenBalance(owner)).toBe(balanceAfterPaying);
  });
});

describe('nonce cleanup (item 7)', () => {
  it('deletes payment and reissue nonces an hour after they expired unused, and used sign-in nonces an hour after their message expired; keeps redeemed and recent ones', async () => {
    const owner = await wallet();
    const paid = await payFor(owner);
    expect((await api('PUT', '/subscribe', paid)).status).toBe(200);
    const payStale = 'pay-' + '2'.repeat(22);
    const payRecent = 'pay-' + '3'.repeat(22);
    const reiStale = 'rei-' + '4'.repeat(22);
    await pool.query(
      `INSERT INTO billing.payment_nonces (nonce, owner_pubkey, plan, amount_base_units, created_at, expires_at)
       VALUES ($1, $3, 'monthly', 1, now() - interval '3 hours', now() - interval '2 hours'),
              ($2, $3, 'monthly', 1, now() - interval '20 minutes', now() - interval '5 minutes')`,
      [payStale, payRecent, paid.ownerPubkey],
    );
    await pool.query(
      `INSERT INTO billing.reissue_nonces (nonce, owner_pubkey, message, created_at, expires_at) VALUES ($1, $2, 'm', now() - interval '3 hours', now() - interval '2 hours')`,
      [reiStale, paid.ownerPubkey],
    );
    // The gateway's used sign-in nonces: one whose message expired two hours ago, one five minutes ago.
    const signInStale = 's'.repeat(36);
    const signInRecent = 'r'.repeat(36);
    await pool.query(`INSERT INTO billing.siws_used_nonces (nonce, expires_at) VALUES ($1, now() - interval '2 hours'), ($2, now() - interval '5 minutes')`, [signInStale, signInRecent]);
    // A redeemed nonce stays (its payment refers to it) even once long expired.
    await pool.query(`UPDATE billing.payment_nonces SET expires_at = now() - interval '2 hours' WHERE nonce = $1`, [paid.nonce]);
    const remaining = async () =>
      (
        await pool.query<{ nonce: string }>(
          `SELECT nonce FROM billing.payment_nonces WHERE nonce = ANY($1) UNION ALL SELECT nonce FROM billing.reissue_nonces WHERE nonce = $2
           UNION ALL SELECT nonce FROM billing.siws_used_nonces WHERE nonce = ANY($3) ORDER BY nonce`,
          [[payStale, payRecent, paid.nonce], reiStale, [signInStale, signInRecent]],
        )
      ).rows.map((r) => r.nonce);
    for (;;) {
      const left = await remaining();
      if (!left.includes(payStale) && !left.includes(reiStale) && !left.includes(signInStale)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await remaining()).sort()).toEqual([paid.nonce, payRecent, signInRecent].sort());
  });
});

/** POST and PUT /reissue signed by the owner: the new key. */
async function reissue(owner: Keypair): Promise<string> {
  const ownerPubkey = owner.publicKey.toBase58();
  const start = await api('POST', '/reissue', { ownerPubkey });
  expect(start.status).toBe(200);
  const signatureBase64 = Buffer.from(await signAsync(new TextEncoder().encode(start.body['message'] as string), owner.secretKey.slice(0, 32))).toString('base64');
  const done = await api('PUT', '/reissue', { nonce: start.body['nonce'], ownerPubkey, signatureBase64 });
  expect(done.status).toBe(200);
  return done.body['apiKey'] as string;
}

const consumedAt = async (nonce: string): Promise<Date | null> =>
  (await pool.query<{ consumed_at: Date | null }>(`SELECT consumed_at FROM billing.payment_nonces WHERE nonce = $1`, [nonce])).rows[0]!.consumed_at;

describe('unsigned redemptions cannot hurt an owner', () => {
  it("a bot's unsigned PUT of a renewal answers 403 signature_required, consumes nothing, and the owner's key keeps working", async () => {
    const owner = await wallet();
    const first = await payFor(owner);
    const k0 = await api('PUT', '/subscribe', first);
    expect(k0.status).toBe(200);
    const renewal = await payFor(owner);

    // Everything the bot sends is public on chain once the renewal lands.
    for (const g of gateways) {
      const bot = await api('PUT', '/subscribe', renewal, g);
      expect([bot.status, bot.body['code']]).toEqual([403, 'signature_required']);
      expect(bot.type).toContain('application/problem+json');
    }
    for (const g of gateways) expect(await paidGet(k0.body['apiKey'], g)).toBe(200);
    expect(await consumedAt(renewal.nonce)).toBeNull();

    // The owner redeems the renewal, signed: nothing was lost to the bot.
    const mine = await api('PUT', '/subscribe', { ...renewal, ...(await sign(owner, renewal.ownerPubkey, renewal.nonce, renewal.txSig)) });
    expect(mine.status).toBe(200);
    expect(mine.body['subscriberId']).toBe(k0.body['subscriberId']);
    expect(new Date(mine.body['paidUntil']).getTime()).toBeGreaterThan(new Date(k0.body['paidUntil']).getTime());
    for (const g of gateways) expect(await paidGet(mine.body['apiKey'], g)).toBe(200);
  });

  it('an unsigned PUT for a nonce started with requireSignature answers 403 and consumes nothing; the signed PUT then succeeds', async () => {
    const owner = await wallet();
    const paid = await payFor(owner, { requireSignature: true });
    const bot = await api('PUT', '/subscribe', paid);
    expect([bot.status, bot.body['code']]).toEqual([403, 'signature_required']);
    expect(bot.type).toContain('application/problem+json');
    expect(await consumedAt(paid.nonce)).toBeNull();
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM billing.subscribers WHERE owner_pubkey = $1`, [paid.ownerPubkey]);
    expect(rows[0].n).toBe(0);

    const mine = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) }, gateways[1]);
    expect(mine.status).toBe(200);
    for (const g of gateways) expect(await paidGet(mine.body['apiKey'], g)).toBe(200);
  });

  it('POST /subscribe accepts requireSignature only as a boolean (400 naming the field)', async () => {
    const ownerPubkey = Keypair.generate().publicKey.toBase58();
    for (const requireSignature of ['true', 1, null]) {
      const res = await api('POST', '/subscribe', { ownerPubkey, requireSignature });
      expect([res.status, res.body['code']]).toEqual([400, 'invalid_request']);
      expect(res.type).toContain('application/problem+json');
      expect(res.body['errors']).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/requireSignature' })]));
    }
    expect((await api('POST', '/subscribe', { ownerPubkey, requireSignature: false })).status).toBe(200);
  });

  it('a first subscription redeemed with the three unsigned fields still works', async () => {
    const owner = await wallet();
    const paid = await payFor(owner);
    const issued = await api('PUT', '/subscribe', paid);
    expect(issued.status).toBe(200);
    for (const g of gateways) expect(await paidGet(issued.body['apiKey'], g)).toBe(200);
  });

  it('an unsigned PUT after the paid period ended (no working key) renews as a first subscription would', async () => {
    const owner = await wallet();
    const first = await payFor(owner);
    const k0 = await api('PUT', '/subscribe', first);
    await pool.query(`UPDATE billing.subscribers SET paid_until = now() - interval '1 second' WHERE id = $1`, [k0.body['subscriberId']]);
    const renewal = await payFor(owner);
    const k1 = await api('PUT', '/subscribe', renewal);
    expect(k1.status).toBe(200);
    expect(await paidGet(k1.body['apiKey'], gateways[0]!)).toBe(200);
  });

  it('refuses a signed message made for another domain or past its expiry (422), consuming nothing', async () => {
    const owner = await wallet();
    const paid = await payFor(owner, { requireSignature: true });
    const cases: [{ domain?: string; expiresAt?: Date }, string][] = [
      [{ domain: 'https://evil.example' }, 'signature_wrong_domain'],
      [{ expiresAt: new Date(Date.now() - 1000) }, 'signature_expired'],
      [{ expiresAt: new Date(Date.now() + 2 * 3600_000) }, 'signature_invalid'],
    ];
    for (const [o, code] of cases) {
      const res = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig, o)) });
      expect([res.status, res.body['code']]).toEqual([422, code]);
    }
    // A message naming another transaction than the body's is not this redemption's.
    const other = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, '1'.repeat(64))) });
    expect([other.status, other.body['code']]).toEqual([422, 'signature_invalid']);
    const unsent = await api('PUT', '/subscribe', { ...paid, signatureBase64: (await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)).signatureBase64 });
    expect([unsent.status, unsent.body['code']]).toEqual([400, 'invalid_request']);
    expect(await consumedAt(paid.nonce)).toBeNull();
    expect((await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) })).status).toBe(200);
  });

  it('a reclaim succeeds once; a second is refused (409 reclaim_used) and the reclaimed key keeps working', async () => {
    const owner = await wallet();
    const paid = await payFor(owner, { requireSignature: true });
    const k1 = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) });
    expect(k1.status).toBe(200);
    // The reply was lost, say: the signed retry takes the key back once.
    const k2 = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) }, gateways[1]);
    expect(k2.status).toBe(200);
    for (const g of gateways) {
      expect(await paidGet(k1.body['apiKey'], g)).toBe(401);
      expect(await paidGet(k2.body['apiKey'], g)).toBe(200);
    }
    const k3 = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) });
    expect([k3.status, k3.body['code']]).toEqual([409, 'reclaim_used']);
    expect(k3.type).toContain('application/problem+json');
    for (const g of gateways) expect(await paidGet(k2.body['apiKey'], g)).toBe(200);
  });

  it("a successful /reissue ends the reclaim window of the owner's earlier payments (410 reclaim_expired)", async () => {
    const owner = await wallet();
    const paid = await payFor(owner, { requireSignature: true });
    expect((await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) })).status).toBe(200);
    const rotated = await reissue(owner);
    const late = await api('PUT', '/subscribe', { ...paid, ...(await sign(owner, paid.ownerPubkey, paid.nonce, paid.txSig)) });
    expect([late.status, late.body['code']]).toEqual([410, 'reclaim_expired']);
    expect(late.body['detail']).toMatch(/reissued/);
    for (const g of gateways) expect(await paidGet(rotated, g)).toBe(200);
    // A payment redeemed after the reissue has its own window.
    const renewal = await payFor(owner, { requireSignature: true });
    expect((await api('PUT', '/subscribe', { ...renewal, ...(await sign(owner, renewal.ownerPubkey, renewal.nonce, renewal.txSig)) })).status).toBe(200);
    expect((await api('PUT', '/subscribe', { ...renewal, ...(await sign(owner, renewal.ownerPubkey, renewal.nonce, renewal.txSig)) })).status).toBe(200);
  });
});
