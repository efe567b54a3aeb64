/**
 * Issue 12, items 1 and 2, over real parts (devnet payments, the billing process, two
 * gateway processes, PostgreSQL, Redis, NATS): a front-runner who redeems a payment
 * first loses the key to the owner's signed PUT, and a payment committed without a reply
 * reaching the customer (billing killed with SIGKILL) is redeemed again by a signed retry
 * without paying twice.
 */
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { answersOk, createTestDatabase, freePort, startService, testNamespace, type ServiceProcess, type TestDatabase } from '@gridlab/testing';
import { subscribeMessage } from '@gridlab/contracts';
import { signAsync } from '@noble/ed25519';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey, Transaction, TransactionInstruction } from '@solana/web3.js';

const SECRET = 'billing-safety-secret-0123456789abcdef';
const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const DECIMALS = 11;
const TOKEN = 10n ** 11n;

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
    LOG_LEVEL: 'warn',
    SOLANA_RPC_URL: devnet.rpcUrl,
    TREASURY_ADDRESS: devnet.treasury,
    TOKEN_MINT: devnet.tokenMint,
    PRICE_LADDER: '0:0.1',
    // The gateway gives up on billing quickly, so a stalled redemption answers 504.
    COMMAND_TIMEOUT_MS: '1500',
    EXPIRY_SWEEP_MS: '200',
    FACT_RELAY_MS: '200',
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
  const started = await startService('services/billing/src/main.ts', env({ OPS_PORT: String(port) }), () => answersOk(`http://127.0.0.1:${port}/readyz`));
  processes.push(started);
  while (!(await answersOk(`${gateways[0]}/api/v1/pricing`).catch(() => false))) await new Promise((r) => setTimeout(r, 100));
  return started;
}

async function api(method: 'POST' | 'PUT', path: string, body: unknown, gateway = gateways[0]!) {
  const res = await fetch(`${gateway}/api/v1${path}`, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
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
async function payFor(owner: Keypair): Promise<{ nonce: string; txSig: string; ownerPubkey: string }> {
  const ownerPubkey = owner.publicKey.toBase58();
  const start = await api('POST', '/subscribe', { ownerPubkey });
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

async function sign(signer: Keypair, ownerPubkey: string, nonce: string): Promise<string> {
  return Buffer.from(await signAsync(new TextEncoder().encode(subscribeMessage(ownerPubkey, nonce)), signer.secretKey.slice(0, 32))).toString('base64');
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
  await devnet.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('front-running PUT /subscribe', () => {
  it("an attacker's unsigned PUT gets a key; the owner's signed PUT takes it back on every gateway", async () => {
    const owner = await wallet();
    const paid = await payFor(owner);

    // Everything in the body is public on chain: the attacker redeems first.
    const stolen = await api('PUT', '/subscribe', paid, gateways[0]);
    expect(stolen.status).toBe(200);
    for (const g of gateways) expect(await paidGet(stolen.body['apiKey'], g)).toBe(200);
    // The honest client that does not sign finds the nonce used.
    expect((await api('PUT', '/subscribe', paid, gateways[1])).body['code']).toBe('nonce_consumed');

    // The attacker cannot sign for the owner.
    const forged = await api('PUT', '/subscribe', { ...paid, signatureBase64: await sign(Keypair.generate(), paid.ownerPubkey, paid.nonce) });
    expect([forged.status, forged.body['code']]).toEqual([422, 'signature_invalid']);

    const mine = await api('PUT', '/subscribe', { ...paid, signatureBase64: await sign(owner, paid.ownerPubkey, paid.nonce) }, gateways[1]);
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

  it('a signature over another nonce, or a consumed nonce named with another transaction, takes nothing back', async () => {
    const owner = await wallet();
    const first = await payFor(owner);
    const second = await payFor(owner);
    expect((await api('PUT', '/subscribe', first)).status).toBe(200);
    const wrongNonce = await api('PUT', '/subscribe', { ...first, signatureBase64: await sign(owner, first.ownerPubkey, second.nonce) });
    expect([wrongNonce.status, wrongNonce.body['code']]).toEqual([422, 'signature_invalid']);
    const otherTx = await api('PUT', '/subscribe', { ...first, txSig: second.txSig, signatureBase64: await sign(owner, first.ownerPubkey, first.nonce) });
    expect([otherTx.status, otherTx.body['code']]).toEqual([409, 'nonce_consumed']);
  });

  it('a signed first redemption is recorded as signed; past the reclaim window a signed retry answers 410', async () => {
    const owner = await wallet();
    const paid = await payFor(owner);
    const signatureBase64 = await sign(owner, paid.ownerPubkey, paid.nonce);
    expect((await api('PUT', '/subscribe', { ...paid, signatureBase64 })).status).toBe(200);
    const { rows } = await pool.query(`SELECT consumed_signed FROM billing.payment_nonces WHERE nonce = $1`, [paid.nonce]);
    expect(rows[0].consumed_signed).toBe(true);
    await pool.query(`UPDATE billing.payment_nonces SET consumed_at = now() - interval '2 days' WHERE nonce = $1`, [paid.nonce]);
    const late = await api('PUT', '/subscribe', { ...paid, signatureBase64 });
    expect([late.status, late.body['code']]).toEqual([410, 'reclaim_expired']);
  });
});

describe('a paid key is never lost after the commit', () => {
  it('billing killed with SIGKILL after committing: the signed retry returns a working key without paying twice', async () => {
    const owner = await wallet();
    const paid = await payFor(owner);
    const balanceAfterPaying = await tokenBalance(owner);
    const signatureBase64 = await sign(owner, paid.ownerPubkey, paid.nonce);

    // Hold billing inside its redemption (the payments table locked) until the gateway gives up.
    const blocker = await pool.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE billing.payments IN EXCLUSIVE MODE');
    const stalled = await api('PUT', '/subscribe', { ...paid, signatureBase64 });
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
    const retried = await api('PUT', '/subscribe', { ...paid, signatureBase64 }, gateways[1]);
    expect(retried.status).toBe(200);
    for (const g of gateways) expect(await paidGet(retried.body['apiKey'], g)).toBe(200);
    // A second retry (its reply lost too, say) still yields a working key; the previous one stops.
    const again = await api('PUT', '/subscribe', { ...paid, signatureBase64 }, gateways[0]);
    expect(again.status).toBe(200);
    for (const g of gateways) {
      expect(await paidGet(again.body['apiKey'], g)).toBe(200);
      expect(await paidGet(retried.body['apiKey'], g)).toBe(401);
    }
    // Paid once and credited once: one payment row, and neither retry extended the period the
    // commit bought (a retry that redeemed the payment again would have added a month). The
    // customer's balance shows no second transfer was asked of them.
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM billing.payments WHERE nonce = $1`, [paid.nonce]);
    expect(rows[0].n).toBe(1);
    expect([retried.body['paidUntil'], again.body['paidUntil']]).toEqual([committedUntil, committedUntil]);
    expect(await paidUntilOf(paid.ownerPubkey)).toBe(committedUntil);
    expect(await tokenBalance(owner)).toBe(balanceAfterPaying);
  });
});

describe('a paid key is never lost: SIGKILL between the commit and the reply', () => {
  it('a renewal committed but never answered (billing killed while delivering the old key\'s revocation) is redeemed by the signed retry', async () => {
    const owner = await wallet();
    const first = await payFor(owner);
    const k0 = await api('PUT', '/subscribe', { ...first, signatureBase64: await sign(owner, first.ownerPubkey, first.nonce) });
    expect(k0.status).toBe(200);
    const renewal = await payFor(owner);
    const balanceAfterPaying = await tokenBalance(owner);
    const signatureBase64 = await sign(owner, renewal.ownerPubkey, renewal.nonce);

    let committedUntil = '';
    // After its commit billing delivers the replaced key's revocation, then replies; make that delivery hang.
    await pool.query(`CREATE FUNCTION billing.test_stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$`);
    await pool.query(`CREATE TRIGGER test_stall BEFORE UPDATE ON billing.revocations FOR EACH ROW EXECUTE FUNCTION billing.test_stall()`);
    try {
      const answer = api('PUT', '/subscribe', { ...renewal, signatureBase64 });
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
    const retried = await api('PUT', '/subscribe', { ...renewal, signatureBase64 }, gateways[1]);
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
  it('deletes payment and reissue nonces an hour after they expired unused; keeps redeemed and recent ones', async () => {
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
    // A redeemed nonce stays (its payment refers to it) even once long expired.
    await pool.query(`UPDATE billing.payment_nonces SET expires_at = now() - interval '2 hours' WHERE nonce = $1`, [paid.nonce]);
    const remaining = async () =>
      (
        await pool.query<{ nonce: string }>(
          `SELECT nonce FROM billing.payment_nonces WHERE nonce = ANY($1) UNION ALL SELECT nonce FROM billing.reissue_nonces WHERE nonce = $2 ORDER BY nonce`,
          [[payStale, payRecent, paid.nonce], reiStale],
        )
      ).rows.map((r) => r.nonce);
    while ((await remaining()).includes(payStale) || (await remaining()).includes(reiStale)) await new Promise((r) => setTimeout(r, 100));
    expect((await remaining()).sort()).toEqual([paid.nonce, payRecent].sort());
  });
});
