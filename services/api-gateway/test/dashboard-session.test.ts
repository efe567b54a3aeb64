import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { request as httpRequest } from 'node:http';
import { getPublicKey, sign } from '@noble/ed25519';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { answersOk, createTestDatabase, freePort, runCli, startService, testNamespace, WORKSPACE_ROOT, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { runMigrations } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA } from '@gridlab/rounds-store';
import '../src/domain/siws'; // sets noble's SHA-512 for signing below

const SECRET = 'gateway-test-secret-0123456789abcdef';
const KEY_OWNER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const WALLET_SECRET = new Uint8Array(32).fill(42);
const WALLET = bs58.encode(getPublicKey(WALLET_SECRET));

let db: TestDatabase;
const ns = testNamespace();
let gateway: ServiceProcess;
let base: string;
let apiKey: string;

function env(): NodeJS.ProcessEnv {
  return { DATABASE_URL: db.url, NATS_PREFIX: ns.natsPrefix, REDIS_PREFIX: ns.redisPrefix, API_KEY_HMAC_SECRET: SECRET, SESSION_SECRET: TEST_SESSION_SECRET, LOG_LEVEL: 'warn' };
}

async function grant(owner: string): Promise<string> {
  const granted = await runCli(['admin', 'grant', '--owner', owner, '--days', '1'], { ...process.env, ...env() });
  return (JSON.parse(granted.stdout) as { apiKey: string }).apiKey;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function call(path: string, init: { method?: string; cookie?: string; origin?: string | null; secFetchSite?: string; body?: unknown; bearer?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  const origin = init.origin === undefined ? base : init.origin;
  if (origin !== null) headers['Origin'] = origin;
  if (init.cookie !== undefined) headers['Cookie'] = init.cookie;
  if (init.secFetchSite !== undefined) headers['Sec-Fetch-Site'] = init.secFetchSite;
  if (init.bearer !== undefined) headers['Authorization'] = `Bearer ${init.bearer}`;
  if (init.body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${base}${path}`, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), headers: res.headers };
}

async function signIn(body: unknown): Promise<{ answer: Answer; cookie: string }> {
  const answer = await call('/api/live/session', { method: 'POST', body });
  const setCookie = answer.headers.get('set-cookie') ?? '';
  return { answer, cookie: setCookie.split(';')[0] ?? '' };
}

beforeAll(async () => {
  // The page at / is the built dashboard: build it the way `make test` does when missing.
  if (!existsSync(join(WORKSPACE_ROOT, 'apps/web/dist/index.html'))) {
    execFileSync('corepack', ['pnpm', '--filter', '@gridlab/web', '-s', 'build'], { cwd: WORKSPACE_ROOT, stdio: 'ignore', env: process.env });
  }
  db = await createTestDatabase();
  // The schemas the read endpoints query (their services create them in a running suite).
  await runMigrations({ databaseUrl: db.url, schema: INDEXER_SCHEMA, dir: INDEXER_MIGRATIONS_DIR });
  await runMigrations({ databaseUrl: db.url, schema: EVENTS_SCHEMA, dir: EVENTS_MIGRATIONS_DIR });
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gateway = await startService('services/api-gateway/src/main.ts', { ...env(), PORT: String(port), OPS_PORT: '0', PUBLIC_ORIGIN: base }, () => answersOk(`${base}/healthz`));
  apiKey = await grant(KEY_OWNER);
});
afterAll(async () => {
  await gateway.stop();
  await db.drop();
  await ns.cleanup();
});

describe('dashboard sessions (/api/live*)', () => {
  it('signs in with an API key: an HttpOnly SameSite=Strict cookie scoped to /api/live, and the key is never echoed', async () => {
    const { answer, cookie } = await signIn({ apiKey });
    expect(answer.status).toBe(201);
    const setCookie = answer.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^gridlab_session=[^;]+; Path=\/api\/live; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(setCookie).not.toContain('Secure'); // loopback: a browser drops Secure cookies over http
    expect(JSON.stringify(answer.body)).not.toContain(apiKey);
    expect(cookie).not.toContain(apiKey);
    expect(answer.body).toMatchObject({ via: 'key', wallet: null });
    const me = await call('/api/live/session', { cookie });
    expect(me.status).toBe(200);
    expect(me.body['subscriberId']).toBe(answer.body['subscriberId']);
  });

  it('serves the API under /api/live with the session and a matching Origin (or Sec-Fetch-Site: same-origin), and refuses otherwise', async () => {
    const { cookie } = await signIn({ apiKey });
    const ok = await call('/api/live/stats', { cookie });
    expect(ok.status).toBe(200);
    expect(ok.body).toHaveProperty('roundsIndexed');
    expect(ok.headers.get('ratelimit-limit')).not.toBeNull();
    expect((await call('/api/live/rounds?limit=1', { cookie, origin: null, secFetchSite: 'same-origin' })).status).toBe(200);
    expect((await call('/api/live/events?since=0', { cookie })).status).toBe(200);

    const noSession = await call('/api/live/stats');
    expect(noSession.status).toBe(401);
    expect(noSession.body['code']).toBe('session_required');
    expect(noSession.headers.get('content-type')).toContain('application/problem+json');
    const forged = await call('/api/live/stats', { cookie: `${cookie.slice(0, -3)}abc` });
    expect(forged.body['code']).toBe('session_required');

    const foreign = await call('/api/live/stats', { cookie, origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body['code']).toBe('origin_mismatch');
    expect((await call('/api/live/stats', { cookie, origin: null })).status).toBe(403);
    expect((await call('/api/live/stats', { cookie, origin: null, secFetchSite: 'cross-site' })).status).toBe(403);
    // A sign-in from another site (login CSRF) is refused too.
    expect((await call('/api/live/session', { method: 'POST', body: { apiKey }, origin: 'https://evil.example' })).status).toBe(403);

    // The public API is unchanged: Bearer keys, and a cookie authorizes nothing there.
    expect((await call('/api/v1/stats', { bearer: apiKey, origin: null })).status).toBe(200);
    expect((await call('/api/v1/stats', { cookie, origin: null })).status).toBe(401);
  });

  it('marks every answer a session cookie authorizes private to that browser: Cache-Control private, no-store and Vary: Cookie', async () => {
    const { cookie } = await signIn({ apiKey });
    const privately = (a: Answer) => ({ status: a.status, cache: a.headers.get('cache-control'), vary: (a.headers.get('vary') ?? '').split(/,\s*/).includes('Cookie') });
    const expected = (status: number) => ({ status, cache: 'private, no-store', vary: true });
    // The memory hot path (gzip varies by Accept-Encoding too), a database read, the session itself, and a refusal.
    const live = await call('/api/live/live', { cookie });
    expect(privately(live)).toEqual(expected(live.status === 503 ? 503 : 200));
    expect(privately(await call('/api/live/stats', { cookie }))).toEqual(expected(200));
    expect(privately(await call('/api/live/session', { cookie }))).toEqual(expected(200));
    expect(privately(await call('/api/live/stats', { cookie: `${cookie.slice(0, -3)}abc` }))).toEqual(expected(401));
    // A stream's headers too (read them, then hang up).
    const abort = new AbortController();
    const stream = await fetch(`${base}/api/live/stream`, { headers: { Cookie: cookie, Origin: base }, signal: abort.signal });
    expect({ cache: stream.headers.get('cache-control'), vary: (stream.headers.get('vary') ?? '').includes('Cookie') }).toEqual({ cache: 'private, no-store', vary: true });
    abort.abort();
    // The public API keeps its own caching rules.
    expect((await call('/api/v1/stats', { bearer: apiKey, origin: null })).headers.get('cache-control')).not.toBe('private, no-store');
  });

  it('refuses a wrong key at sign-in and answers field errors for a malformed body', async () => {
    const wrong = await call('/api/live/session', { method: 'POST', body: { apiKey: 'gl_live_nope' } });
    expect(wrong.status).toBe(401);
    const empty = await call('/api/live/session', { method: 'POST', body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body['errors']).toEqual([{ path: '/apiKey', message: 'is required unless signing in with a wallet' }]);
    const badWallet = await call('/api/live/session/challenge', { method: 'POST', body: { wallet: 'not-a-wallet' } });
    expect(badWallet.status).toBe(400);
  });

  it('signs in with the wallet (Sign-In With Solana); a wrong signature or a wallet without a subscription is refused', async () => {
    const noSub = await call('/api/live/session/challenge', { method: 'POST', body: { wallet: WALLET } });
    expect(noSub.status).toBe(200);
    const message = String(noSub.body['message']);
    expect(message.startsWith(`${new URL(base).host} wants you to sign in with your Solana account:\n${WALLET}\n`)).toBe(true);
    const signature = Buffer.from(sign(new TextEncoder().encode(message), WALLET_SECRET)).toString('base64');
    const none = await call('/api/live/session', { method: 'POST', body: { wallet: WALLET, message, signatureBase64: signature } });
    expect(none.status).toBe(404);
    expect(none.body['code']).toBe('no_subscription');

    await grant(WALLET);
    const badSignature = Buffer.from(sign(new TextEncoder().encode(message), new Uint8Array(32).fill(1))).toString('base64');
    const refused = await call('/api/live/session', { method: 'POST', body: { wallet: WALLET, message, signatureBase64: badSignature } });
    expect(refused.status).toBe(401);
    expect(refused.body['code']).toBe('invalid_signature');

    const { answer, cookie } = await signIn({ wallet: WALLET, message, signatureBase64: signature });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ via: 'wallet', wallet: WALLET });
    expect((await call('/api/live/stats', { cookie })).status).toBe(200);
    // The signed message signed in once: a replay of it (from a log, a proxy, another tab) is refused.
    const replayed = await call('/api/live/session', { method: 'POST', body: { wallet: WALLET, message, signatureBase64: signature } });
    expect([replayed.status, replayed.body['code'], replayed.headers.get('set-cookie')]).toEqual([401, 'invalid_signature', null]);

    // Revoking the wallet's key ends the session at its next request.
    await runCli(['admin', 'revoke', '--owner', WALLET], { ...process.env, ...env() });
    const revoked = await call('/api/live/stats', { cookie });
    expect(revoked.status).toBe(401);
    expect(revoked.body['code']).toBe('invalid_api_key');
  });

  it('signs a message in once even after Redis forgets everything (a failover to a replica the writes had not reached)', async () => {
    const secret = new Uint8Array(32).fill(43);
    const wallet = bs58.encode(getPublicKey(secret));
    await grant(wallet);
    const challenge = await call('/api/live/session/challenge', { method: 'POST', body: { wallet } });
    const message = String(challenge.body['message']);
    const signatureBase64 = Buffer.from(sign(new TextEncoder().encode(message), secret)).toString('base64');
    const first = await call('/api/live/session', { method: 'POST', body: { wallet, message, signatureBase64 } });
    expect(first.status).toBe(201);

    // Every key of this gateway gone, as after promoting a replica that had not received them.
    const redis = new Redis(ns.redisUrl);
    try {
      for (let cursor = '0'; ; ) {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${ns.redisPrefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        if ((cursor = next) === '0') break;
      }
      expect(await redis.keys(`${ns.redisPrefix}*`)).toEqual([]);
    } finally {
      redis.disconnect();
    }

    // The captured message, replayed within its five minutes, signs in no more.
    const replayed = await call('/api/live/session', { method: 'POST', body: { wallet, message, signatureBase64 } });
    expect([replayed.status, replayed.body['code'], replayed.headers.get('set-cookie')]).toEqual([401, 'invalid_signature', null]);
  });

  it('binds Sign-In With Solana to PUBLIC_ORIGIN: a challenge asked with a foreign Host still names the real site, and a message for another site is refused', async () => {
    // Host is the client's to write (a proxy, a phishing page relaying the call): it names nothing here.
    const port = new URL(base).port;
    const foreign = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/api/live/session/challenge', method: 'POST', headers: { Host: 'evil.example', Origin: base, 'Content-Type': 'application/json' } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ wallet: WALLET }));
    });
    expect(foreign.status).toBe(200);
    const message = String((JSON.parse(foreign.body) as { message: string }).message);
    expect(message.startsWith(`${new URL(base).host} wants you to sign in with your Solana account:\n`)).toBe(true);
    expect(message).toContain(`\nURI: ${base}\n`);
    expect(message).not.toContain('evil.example');
    // A message naming another site (as a challenge made elsewhere would) is refused.
    const other = message.replace(new URL(base).host, 'evil.example');
    const signature = Buffer.from(sign(new TextEncoder().encode(other), WALLET_SECRET)).toString('base64');
    const refused = await call('/api/live/session', { method: 'POST', body: { wallet: WALLET, message: other, signatureBase64: signature } });
    expect([refused.status, refused.body['code']]).toEqual([401, 'invalid_signature']);
    // And the page's requests must come from PUBLIC_ORIGIN, whatever Host says.
    const { cookie } = await signIn({ apiKey });
    expect((await call('/api/live/stats', { cookie, origin: 'http://evil.example' })).status).toBe(403);
  });

  it("tells the page its settings without a session, from its own origin only", async () => {
    const config = await call('/api/live/config');
    expect(config.status).toBe(200);
    // PUBLIC_RPC_URL unset: Solana Pay only; PUBLIC_ORIGIN: this gateway's.
    expect(config.body).toEqual({ rpcUrl: null, publicOrigin: base });
    expect((await call('/api/live/config', { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('serves the dashboard page at / with a strict Content-Security-Policy, and its hashed assets cached for a year', async () => {
    const res = await fetch(`${base}/`);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    // Built in beforeAll when missing, as `make start`/`make test` build it (scripts/ensure-deps.sh).
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<div id="app"');
    const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${base}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('max-age=31536000');
  });

  it('says how to build the dashboard when there is no build', async () => {
    const port = await freePort();
    const unbuilt = await startService('services/api-gateway/src/main.ts', { ...env(), PORT: String(port), OPS_PORT: '0', WEB_ROOT: join(WORKSPACE_ROOT, '.gridlab', 'no-such-dashboard') }, () =>
      answersOk(`http://127.0.0.1:${port}/healthz`),
    );
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('dashboard_not_built');
    } finally {
      await unbuilt.stop();
    }
  });
});

describe('the session cookie behind a proxy (PUBLIC_ORIGIN https, requests arriving over plain http)', () => {
  // A TLS-terminating proxy forwards to the gateway over plain http and rewrites Host to
  // the gateway's own address (here loopback): what the cookie looks like must follow
  // PUBLIC_ORIGIN, never that Host.
  const site = 'https://gridlab.test';
  let proxied: ServiceProcess;
  let upstream: string;

  beforeAll(async () => {
    const port = await freePort();
    upstream = `http://127.0.0.1:${port}`;
    proxied = await startService('services/api-gateway/src/main.ts', { ...env(), PORT: String(port), OPS_PORT: '0', PUBLIC_ORIGIN: site }, () => answersOk(`${upstream}/healthz`));
  });
  afterAll(async () => {
    await proxied.stop();
  });

  const send = async (path: string, init: { method?: string; cookie?: string; body?: unknown } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { Origin: site };
    if (init.cookie !== undefined) headers['Cookie'] = init.cookie;
    if (init.body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${upstream}${path}`, { method: init.method ?? 'GET', headers, ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }) });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>), headers: res.headers };
  };

  it('is __Host-gridlab_session, Secure, Path=/, without Domain; works on every session route; a cookie of another name is no session', async () => {
    const signedIn = await send('/api/live/session', { method: 'POST', body: { apiKey } });
    expect(signedIn.status).toBe(201);
    const setCookie = signedIn.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^__Host-gridlab_session=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+; Secure$/);
    expect(setCookie).not.toMatch(/Domain=/i);
    const cookie = setCookie.split(';')[0]!;
    const token = cookie.slice(cookie.indexOf('=') + 1);

    // Every route that reads the session finds it (the browser sends a Path=/ cookie to all).
    expect((await send('/api/live/session', { cookie })).status).toBe(200);
    expect((await send('/api/live/stats', { cookie })).status).toBe(200);
    expect((await send('/api/live/rounds?limit=1', { cookie })).status).toBe(200);

    // The same signed token under any other name authenticates nothing.
    for (const other of [`gridlab_session=${token}`, `__host-gridlab_session=${token}`, `__Secure-gridlab_session=${token}`]) {
      const refused = await send('/api/live/stats', { cookie: other });
      expect({ other, status: refused.status, code: refused.body['code'] }).toEqual({ other, status: 401, code: 'session_required' });
    }

    // Sign-out clears exactly that cookie (same name, path and Secure, or the browser keeps
    // it), whatever happens next: here no billing records it (503 sign_out_incomplete).
    const out = await send('/api/live/session', { method: 'DELETE', cookie });
    expect([out.status, out.body['code']]).toEqual([503, 'sign_out_incomplete']);
    expect(out.headers.get('set-cookie')).toBe('__Host-gridlab_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0; Secure');
  });
});
