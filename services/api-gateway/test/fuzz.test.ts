/**
 * Hostile requests derived from the OpenAPI document (every operation,
 * its path, query and header parameters and its body), plus malformed JSON, deep
 * nesting, huge and non-ASCII values and bad Authorization headers, sent by the
 * thousand to the gateway with the services behind it running (billing, lab-forward,
 * lab-backtest, notifier, on a devnet), so that billing's, the Lab's and the notifier's own
 * validation is fuzzed too. Every operation is also sent as the dashboard sends it, on its `/api/live` mirror
 * with a session cookie and the page's Origin, beside the session routes themselves. No
 * answer may be a 5xx, every error is problem+json with a `code`, no body shows a stack
 * trace or a file path, every operation's handler is reached by a share of the requests
 * (counted on NATS for the operations other services answer; otherwise answers only the
 * route's handler gives: a status the document lists for the operation, not one of the
 * checks before it), and the gateway is healthy afterwards.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, KeyStore } from '@gridlab/billing-store';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, freePort, startService, testNamespace, type ServiceProcess, type TestDatabase, TEST_SESSION_SECRET } from '@gridlab/testing';
import { connectBus, type NatsConnection } from '@gridlab/bus';
import { ALERT_ID_RE, natsNames, STRATEGY_ID_RE } from '@gridlab/contracts';
import { startDevnet, type Devnet } from '@gridlab/devnet';
import { createLogger } from '@gridlab/logger';
import fc from 'fast-check';
import { loadOpenApi } from '../src/http/openapi';

const SECRET = 'gateway-fuzz-secret-0123456789abcdef!!';
const RUNS = Number(process.env['GRIDLAB_FUZZ_RUNS'] ?? 3000);
/** Settled rounds on the devnet before the fuzzing starts (more settle meanwhile). */
const HISTORY = 100;
const ns = testNamespace();
let db: TestDatabase;
let pool: Pool;
let devnet: Devnet;
let bus: NatsConnection;
const processes: ServiceProcess[] = [];
let base: string;
const keys: string[] = [];
/** `gridlab_session=...` cookies of signed-in dashboard sessions. */
const cookies: string[] = [];
/** Requests that reached another service's handler, by NATS subject (a copy of each, seen by a plain subscription). */
const delivered = new Map<string, number>();

/** The operations other services answer, by `METHOD path`, and the subject the gateway forwards them on. */
const FORWARDED: Readonly<Record<string, keyof ReturnType<typeof natsNames>['commands']>> = {
  'GET /api/v1/pricing': 'pricing',
  'POST /api/v1/subscribe': 'subscribeStart',
  'PUT /api/v1/subscribe': 'subscribeComplete',
  'POST /api/v1/reissue': 'reissueStart',
  'PUT /api/v1/reissue': 'reissueComplete',
  'POST /api/v1/lab/backtest': 'labBacktest',
  'POST /api/v1/lab/analytics': 'labAnalytics',
  'POST /api/v1/lab/strategies': 'strategyCreate',
  'GET /api/v1/lab/strategies': 'strategyList',
  'GET /api/v1/lab/strategies/{id}': 'strategyGet',
  'PATCH /api/v1/lab/strategies/{id}': 'strategyUpdate',
  'DELETE /api/v1/lab/strategies/{id}': 'strategyDelete',
  'POST /api/v1/lab/strategies/{id}/restore': 'strategyRestore',
  'GET /api/v1/lab/strategies/{id}/forward': 'strategyForward',
  'GET /api/v1/lab/leaderboard': 'leaderboardGet',
  'GET /api/v1/lab/leaderboard/{id}': 'leaderboardEntry',
  'POST /api/v1/alerts': 'alertCreate',
  'GET /api/v1/alerts': 'alertList',
  'GET /api/v1/alerts/{id}': 'alertGet',
  'PATCH /api/v1/alerts/{id}': 'alertUpdate',
  'DELETE /api/v1/alerts/{id}': 'alertDelete',
  'POST /api/v1/alerts/{id}/secret': 'alertRotateSecret',
  'POST /api/v1/alerts/{id}/test': 'alertTest',
  'GET /api/v1/alerts/{id}/deliveries': 'alertDeliveries',
  'POST /api/v1/alerts/{id}/deliveries/{firingId}/redeliver': 'alertRedeliver',
};
/**
 * Statuses the gateway also answers before any route handler (authentication, payment,
 * Origin, rate limits and caps, oversized headers, an unparsable or oversized body):
 * never taken as a sign that the handler ran.
 */
const BEFORE_HANDLER = new Set([400, 401, 402, 403, 413, 429, 431]);
/** The code of the catch-all's 404 (no route matched): not a handler's 404. */
const NO_ROUTE_CODE = 'not_found';
/** Where the dashboard's mirror of `/api/v1/<path>` lives, for a session. */
const LIVE = '/api/live';
/** Sessions the fuzzer signs in to (one per key, as many pages would): enough that per-key caps seldom refuse them. */
const SESSIONS = 30;
/** Every operation's handler must see at least this share of its requests. */
const MIN_REACHED_SHARE = 0.05;
/**
 * Operations the fuzzer does not count handler answers of: the document itself, and the
 * sign-in routes, whose answers past their checks need a fresh signed wallet message or
 * a key in a body (fuzzed, not counted).
 */
const UNCOUNTED = new Set(['GET /api/v1/openapi.json', `POST ${LIVE}/session/challenge`, `POST ${LIVE}/session`]);

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly schema?: Record<string, unknown>;
}
interface Operation {
  readonly method: string;
  readonly path: string;
  readonly parameters: readonly Parameter[];
  readonly body: Record<string, unknown> | null;
  /** The statuses the document lists for it, but those also answered before any handler. */
  readonly handlerStatuses: ReadonlySet<number>;
  /** Sent as the dashboard sends it: a session cookie and the page's Origin, no key. */
  readonly session: boolean;
}

/** Every operation of the OpenAPI document (the dashboard's session routes among them), with its parameters and its body schema ($refs resolved one level at a time). */
function operations(): Operation[] {
  const doc = loadOpenApi().document as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
  const resolve = (schema: unknown): Record<string, unknown> | null => {
    const ref = (schema as { $ref?: string } | undefined)?.$ref;
    if (ref !== undefined) return resolve(doc.components.schemas[ref.split('/').pop()!]);
    return (schema as Record<string, unknown> | undefined) ?? null;
  };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    // Parameters of the path item (a strategy's {id}) apply to each of its operations.
    const shared = (item['parameters'] as Parameter[] | undefined) ?? [];
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const o = op as { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: unknown }> }; responses?: Record<string, unknown> };
      const v1 = {
        method: method.toUpperCase(),
        path,
        parameters: [...shared, ...(o.parameters ?? [])],
        body: resolve(o.requestBody?.content?.['application/json']?.schema),
        handlerStatuses: new Set(Object.keys(o.responses ?? {}).map(Number).filter((s) => s < 500 && !BEFORE_HANDLER.has(s))),
      };
      // The dashboard's own routes (its session, its settings) are sent as the page sends them; the sign-out
      // is not sent at all: it would end the sessions every other request here uses.
      if (path.startsWith(`${LIVE}/`)) {
        if (!(method === 'delete' && path === `${LIVE}/session`)) out.push({ ...v1, session: true });
        continue;
      }
      out.push({ ...v1, session: false });
      // The dashboard's mirror of every operation but the document.
      if (path !== '/api/v1/openapi.json') out.push({ ...v1, path: `${LIVE}${path.slice('/api/v1'.length)}`, session: true });
    }
  }
  return out;
}

const DOCUMENT = loadOpenApi().document as { components: { schemas: Record<string, unknown> } };

/** `[1-9A-HJ-NP-Za-km-z]` and the like: the characters of a simple character class. */
function classChars(cls: string): string[] {
  const chars: string[] = [];
  for (let i = 0; i < cls.length; i++) {
    if (cls[i + 1] === '-' && i + 2 < cls.length) {
      for (let c = cls.charCodeAt(i); c <= cls.charCodeAt(i + 2); c++) chars.push(String.fromCharCode(c));
      i += 2;
    } else chars.push(cls[i]!);
  }
  return chars;
}

/**
 * Values the schema accepts (so that a request gets past the gateway's and the contract's
 * checks to the handler behind them), of every size the schema allows; unknown
 * constructs give any JSON.
 */
function validArb(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const doc = DOCUMENT;
  let s = schema as Record<string, any> | undefined;
  while (s?.['$ref'] !== undefined) s = doc.components.schemas[String(s['$ref']).split('/').pop()!] as Record<string, any>;
  if (s === undefined || depth > 6) return fc.jsonValue();
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
  for (const k of ['oneOf', 'anyOf']) if (Array.isArray(s[k])) return fc.oneof(...(s[k] as unknown[]).map((x) => validArb(x, depth + 1)));
  const type = Array.isArray(s['type']) ? s['type'][0] : s['type'];
  switch (type) {
    case 'string': {
      const minLength = (s['minLength'] as number | undefined) ?? 0;
      const maxLength = Math.min((s['maxLength'] as number | undefined) ?? 40, 200);
      const pattern = s['pattern'] as string | undefined;
      const cls = pattern === undefined ? null : /^\^\[([^\]]+)\]\+\$$/.exec(pattern);
      if (cls !== null) return fc.string({ unit: fc.constantFrom(...classChars(cls[1]!)), minLength, maxLength });
      if (pattern !== undefined) return fc.stringMatching(new RegExp(pattern));
      if (s['format'] === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.string({ minLength, maxLength });
    }
    case 'integer': {
      const min = (s['minimum'] as number | undefined) ?? -1_000_000;
      const max = Math.min((s['maximum'] as number | undefined) ?? 1_000_000, Number.MAX_SAFE_INTEGER);
      // Small values mostly: ids and limits that name stored rounds.
      return fc.oneof(fc.integer({ min: Math.max(min, 0), max: Math.max(Math.min(max, 400), Math.max(min, 0)) }), fc.integer({ min, max }));
    }
    case 'number':
      return fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.double({ noNaN: true, noDefaultInfinity: true }));
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validArb(s['items'], depth + 1), { minLength: (s['minItems'] as number | undefined) ?? 0, maxLength: Math.min((s['maxItems'] as number | undefined) ?? 5, 5) });
    case 'object': {
      const props = (s['properties'] as Record<string, unknown> | undefined) ?? {};
      const required = ((s['required'] as string[] | undefined) ?? []).filter((k) => k in props);
      return fc.record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, validArb(v, depth + 1)])), { requiredKeys: required });
    }
    default:
      return fc.jsonValue();
  }
}

/** A path parameter's value: as its schema (or, for a strategy's or an alert rule's id, its pattern) allows, or hostile. */
function pathValueArb(path: string, p: Parameter, raw: fc.Arbitrary<string>): fc.Arbitrary<string> {
  // The dashboard's mirror (/api/live/alerts/...) takes the same ids as /api/v1.
  const idPattern = path.startsWith('/api/v1/alerts') || path.startsWith(`${LIVE}/alerts`) ? ALERT_ID_RE : STRATEGY_ID_RE;
  const valid = p.name === 'id' && p.schema?.['type'] !== 'integer' ? fc.stringMatching(idPattern) : validArb(p.schema).map(String);
  return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: raw, weight: 1 });
}

// Hostile values of every kind.
const huge = fc.constantFrom('9'.repeat(400), 'x'.repeat(70_000), '🙂'.repeat(5000));
const nasty = fc.constantFrom('', ' ', '-1', '0', '1e309', 'NaN', 'null', 'true', '[]', '{}', '%00', '../../etc/passwd', '<script>', "' OR 1=1 --", '\u0000', '\uFFFF', '\uD800', 'Ω≈ç√', '١٢٣', '9007199254740993', '-9007199254740993', '1.5', '0x10');
const scalar = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), nasty, huge);
const deep = fc.integer({ min: 50, max: 5000 }).map((n) => JSON.parse('['.repeat(Math.min(n, 900)) + ']'.repeat(Math.min(n, 900))) as unknown);

/** A body shaped like the schema (its property names) with hostile values, or anything at all. */
function bodyArb(schema: Record<string, unknown> | null): fc.Arbitrary<unknown> {
  const names = Object.keys((schema?.['properties'] as Record<string, unknown> | undefined) ?? {});
  const shaped =
    names.length === 0
      ? fc.dictionary(fc.string(), scalar)
      : fc.record(Object.fromEntries(names.map((n) => [n, fc.oneof(scalar, fc.jsonValue(), deep)])), { requiredKeys: [] });
  if (schema === null) return fc.oneof(shaped, fc.jsonValue(), deep, scalar);
  // Valid bodies reach the handler's own rules; one hostile field in a valid body tests its checks.
  const valid = validArb(schema);
  const oneHostile = names.length === 0 ? valid : fc.tuple(valid, fc.constantFrom(...names), fc.oneof(scalar, deep)).map(([b, k, v]) => (typeof b === 'object' && b !== null ? { ...b, [k]: v } : b));
  return fc.oneof({ arbitrary: valid, weight: 8 }, { arbitrary: oneHostile, weight: 3 }, shaped, fc.jsonValue(), deep, scalar);
}

interface FuzzRequest {
  /** `METHOD path` of the operation, as the document names it. */
  readonly operation: string;
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

function requestArb(op: Operation): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const raw = fc.oneof(scalar.map(String), nasty, fc.jsonValue().map((v) => JSON.stringify(v)));
  return fc
    .record({
      path: fc.tuple(...pathParams.map((p) => pathValueArb(op.path, p, raw))),
      // Valid values mostly (as for path parameters), so that a handler's own checks pass often enough to be counted.
      query: fc.tuple(...queryParams.map((p) => fc.option(fc.oneof({ arbitrary: validArb(p.schema).map(String), weight: 3 }, raw), { nil: undefined }))),
      extraQuery: fc.option(fc.tuple(fc.string(), raw), { nil: undefined }),
      session: fc.oneof(
        // A signed-in session from the page's origin most often, as the dashboard sends its requests.
        { arbitrary: fc.constantFrom(...cookies).map((cookie) => ({ cookie, origin: base })), weight: 12 },
        fc.constantFrom(...cookies).map((cookie) => ({ cookie, origin: 'https://evil.example' })),
        fc.constantFrom(...cookies).map((cookie) => ({ cookie, origin: undefined })),
        fc.string().map((s) => ({ cookie: `gridlab_session=${s}`, origin: base })),
        fc.constant({ cookie: undefined, origin: base }),
      ),
      auth: fc.oneof(
        // A working key most often, so that paid operations get past authentication to their handlers.
        { arbitrary: fc.constantFrom(...keys).map((k) => `Bearer ${k}`), weight: 8 },
        fc.constantFrom(...keys).map((k) => `bearer   ${k}  `),
        fc.string().map((s) => `Bearer ${s}`),
        fc.constantFrom('', 'Bearer', 'Basic Zm9vOmJhcg==', `Bearer grid_${'1'.repeat(43)}`, `Bearer grid_${'0'.repeat(43)}`, 'Bearer 🙂', `Bearer ${'a'.repeat(10_000)}`),
        fc.constant(undefined),
      ),
      accept: fc.constantFrom(undefined, 'application/json', 'application/x-ndjson', 'text/event-stream', '*/*', 'garbage/;;;'),
      encoding: fc.constantFrom(undefined, 'gzip', 'br', 'identity;q=0', 'x'),
      // A round id mostly (the miner stream's resume point), so that streams checking it get past that check often enough to be counted.
      lastEventId: fc.option(fc.oneof({ arbitrary: fc.nat().map(String), weight: 3 }, raw), { nil: undefined }),
      contentType: fc.oneof(
        { arbitrary: fc.constant('application/json'), weight: 6 },
        fc.constantFrom('application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
      ),
      body: fc.oneof(
        { arbitrary: bodyArb(op.body).map((b) => JSON.stringify(b)), weight: 4 },
        fc.constantFrom('{', '{"a":', 'nul', '[1,2', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
        fc.string(),
      ),
      forwardedFor: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('garbage', '', '1.2.3.4, 5.6.7.8', '::ffff:10.0.0.1')),
    })
    .map((r) => {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeURIComponent(r.path[i]!.replace(/[\uD800-\uDFFF]/g, '?')))));
      const query = new URLSearchParams();
      queryParams.forEach((p, i) => r.query[i] !== undefined && query.append(p.name, r.query[i]));
      if (r.extraQuery !== undefined) query.append(r.extraQuery[0], r.extraQuery[1]);
      const headers: Record<string, string> = { 'X-Forwarded-For': r.forwardedFor, 'Content-Type': r.contentType };
      if (op.session) {
        if (r.session.cookie !== undefined) headers['Cookie'] = r.session.cookie;
        if (r.session.origin !== undefined) headers['Origin'] = r.session.origin;
      } else if (r.auth !== undefined) headers['Authorization'] = r.auth;
      if (r.accept !== undefined) headers['Accept'] = r.accept;
      if (r.encoding !== undefined) headers['Accept-Encoding'] = r.encoding;
      if (r.lastEventId !== undefined) headers['Last-Event-ID'] = r.lastEventId.replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '?');
      for (const [k, v] of Object.entries(headers)) headers[k] = v.replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '?');
      const q = query.toString();
      return { operation: `${op.method} ${op.path}`, method: op.method, url: `${base}${path}${q === '' ? '' : `?${q}`}`, headers, body: op.method === 'GET' || op.method === 'DELETE' ? undefined : r.body };
    });
}

/** Sends one request; streams (SSE, NDJSON) are read only as far as their headers. */
async function send(r: FuzzRequest): Promise<{ status: number; type: string; body: string }> {
  const abort = new AbortController();
  const res = await fetch(r.url, { method: r.method, headers: r.headers, signal: abort.signal, ...(r.body === undefined ? {} : { body: r.body }) });
  const type = res.headers.get('content-type') ?? '';
  if (res.status === 200 && (type.startsWith('text/event-stream') || type.startsWith('application/x-ndjson'))) {
    abort.abort();
    return { status: res.status, type, body: '' };
  }
  return { status: res.status, type, body: await res.text() };
}

/** The `code` of a problem+json body, or undefined. */
function problemCode(body: string): unknown {
  try {
    return (JSON.parse(body) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

/** A stack frame, a file path with a line number, a dependency or workspace path. */
const LEAK_RE = /\n\s+at \S|\(\/[^)]*:\d+:\d+\)|node_modules\/|\/work\/|\/home\/|\.(?:ts|js|cjs|mjs):\d+/;

beforeAll(async () => {
  devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 10, intermissionSlots: 3, historyRounds: HISTORY, seed: 21 });
  db = await createTestDatabase();
  for (const [schema, dir] of [
    [BILLING_SCHEMA, BILLING_MIGRATIONS_DIR],
    [INDEXER_SCHEMA, INDEXER_MIGRATIONS_DIR],
    [EVENTS_SCHEMA, EVENTS_MIGRATIONS_DIR],
  ] as const) {
    await runMigrations({ databaseUrl: db.url, schema, dir });
  }
  pool = createPool(db.url);
  const store = new KeyStore(pool, SECRET);
  // Many keys, so that most requests get past their key's rate limit to the handlers.
  for (let i = 0; i < 60; i++) keys.push((await store.grant(`Fuzz${String(i).padStart(2, '0')}${'1'.repeat(38)}`, 30, new Date())).apiKey);

  // A copy of every request the gateway forwards, counted by subject.
  bus = await connectBus({ servers: ns.natsUrl, name: 'fuzz-count', logger: createLogger({ service: 'test', silent: true }) });
  for (const subject of Object.values(natsNames(ns.natsPrefix).commands)) {
    bus.subscribe(subject, { callback: () => void delivered.set(subject, (delivered.get(subject) ?? 0) + 1) });
  }
  await bus.flush();

  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: db.url,
    NATS_PREFIX: ns.natsPrefix,
    REDIS_PREFIX: ns.redisPrefix,
    API_KEY_HMAC_SECRET: SECRET,
    SESSION_SECRET: TEST_SESSION_SECRET,
    LOG_LEVEL: 'error',
    SOLANA_RPC_URL: devnet.rpcUrl,
    SOLANA_WS_URL: devnet.wsUrl,
    TREASURY_ADDRESS: devnet.treasury,
    TOKEN_MINT: devnet.tokenMint,
    LAB_WORKERS: '1',
    CATCH_UP_INTERVAL_MS: '600000',
  };
  const [indexerPort, billingPort, forwardPort, backtestPort, notifierPort, port] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  // The indexer stores the devnet's rounds and publishes the live snapshot /live serves.
  processes.push(
    await startService(
      'services/indexer/src/main.ts',
      { ...env, OPS_PORT: String(indexerPort), ORE_PROGRAM_ID: devnet.programId, POLL_INTERVAL_MS: '200', SLOT_SECONDS: '0.02' },
      () => answersOk(`http://127.0.0.1:${indexerPort}/healthz`),
      60_000,
    ),
  );
  const rounds = new RoundRepository(pool);
  while ((await rounds.count().catch(() => 0)) < HISTORY) await new Promise((r) => setTimeout(r, 100));
  processes.push(
    ...(await Promise.all([
      startService('services/billing/src/main.ts', { ...env, OPS_PORT: String(billingPort) }, () => answersOk(`http://127.0.0.1:${billingPort}/readyz`), 60_000),
      startService('services/lab-forward/src/main.ts', { ...env, OPS_PORT: String(forwardPort) }, () => answersOk(`http://127.0.0.1:${forwardPort}/readyz`), 60_000),
      startService('services/lab-backtest/src/main.ts', { ...env, OPS_PORT: String(backtestPort) }, () => answersOk(`http://127.0.0.1:${backtestPort}/readyz`), 60_000),
      startService('services/notifier/src/main.ts', { ...env, OPS_PORT: String(notifierPort) }, () => answersOk(`http://127.0.0.1:${notifierPort}/readyz`), 60_000),
    ])),
  );
  base = `http://127.0.0.1:${port}`;
  processes.push(
    await startService('services/api-gateway/src/main.ts', { ...env, PORT: String(port), TRUSTED_PROXIES: '127.0.0.1', PUBLIC_ORIGIN: base }, () => answersOk(`${base}/healthz`)),
  );
  // Dashboard sessions, signed in as the page does (the last keys: their buckets are the sessions').
  for (const [i, apiKey] of keys.slice(-SESSIONS).entries()) {
    const res = await fetch(`${base}${LIVE}/session`, {
      method: 'POST',
      headers: { Origin: base, 'Content-Type': 'application/json', 'X-Forwarded-For': `203.0.113.${i + 1}` },
      body: JSON.stringify({ apiKey }),
    });
    if (res.status !== 201) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
    cookies.push((res.headers.get('set-cookie') ?? '').split(';')[0]!);
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await bus?.drain();
  await devnet?.stop();
  await pool?.end();
  await db?.drop();
  await ns.cleanup();
});

describe('fuzzing the gateway from its OpenAPI document', () => {
  it(`answers ${RUNS} hostile requests with no 5xx, problem+json errors with a code, nothing internal, and reaches every handler`, async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(20);
    const statuses = new Map<number, number>();
    /** Per operation: requests sent, and answered by its handler (a status only the handler gives). */
    const perOperation = new Map<string, { sent: number; byHandler: number }>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ops).chain((op) => requestArb(op).map((r) => ({ op, r }))),
        async ({ op, r }) => {
          const res = await send(r);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const tally = perOperation.get(r.operation) ?? { sent: 0, byHandler: 0 };
          tally.sent++;
          if (op.handlerStatuses.has(res.status) && !(res.status === 404 && problemCode(res.body) === NO_ROUTE_CODE)) tally.byHandler++;
          perOperation.set(r.operation, tally);
          const what = `${r.method} ${r.url.slice(0, 200)}`;
          if (res.status >= 500) throw new Error(`${what} answered ${res.status}: ${res.body.slice(0, 300)}`);
          if (res.status >= 400) {
            if (!res.type.startsWith('application/problem+json')) throw new Error(`${what} answered ${res.status} as ${res.type}`);
            const problem = JSON.parse(res.body) as { code?: unknown; status?: unknown };
            if (typeof problem.code !== 'string' || problem.status !== res.status) throw new Error(`${what}: problem without a code: ${res.body.slice(0, 300)}`);
          }
          if (LEAK_RE.test(res.body)) throw new Error(`${what} leaked internals: ${res.body.slice(0, 300)}`);
        },
      ),
      { numRuns: RUNS, endOnFailure: true },
    );
    // Each operation's handler saw a share of its requests: for those other services answer,
    // the requests their subject carried (sent on /api/v1 or its /api/live mirror: the share
    // is of both); otherwise the answers only its handler gives. (The table is printed for reading.)
    await bus.flush();
    const names = natsNames(ns.natsPrefix).commands;
    const sentTo = (operation: string): { sent: number; byHandler: number } => perOperation.get(operation) ?? { sent: 0, byHandler: 0 };
    const v1Of = (op: Operation): string => `${op.method} /api/v1${op.path.slice(LIVE.length)}`;
    const reached = ops
      .map((op) => ({ operation: `${op.method} ${op.path}`, op }))
      .filter(({ operation }) => !UNCOUNTED.has(operation))
      // The mirror of an operation another service answers is counted with it, on NATS.
      .filter(({ op }) => !(op.session && FORWARDED[v1Of(op)] !== undefined))
      .map(({ operation, op }) => {
        const { sent, byHandler } = sentTo(operation);
        const forwarded = FORWARDED[operation];
        if (forwarded === undefined) return { operation, sent, handled: byHandler, share: sent === 0 ? 0 : byHandler / sent };
        const both = sent + sentTo(`${op.method} ${LIVE}${op.path.slice('/api/v1'.length)}`).sent;
        const handled = delivered.get(names[forwarded]) ?? 0;
        return { operation, sent: both, handled, share: both === 0 ? 0 : handled / both };
      });
    process.stdout.write(`fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}\n`);
    process.stdout.write(`fuzz requests reaching each handler:\n${reached.map((r) => `  ${r.operation.padEnd(42)} ${String(r.handled).padStart(5)} of ${r.sent}`).join('\n')}\n`);
    expect(reached.filter((r) => r.handled < 3 || r.share < MIN_REACHED_SHARE)).toEqual([]);
    // The dashboard's mirror and its session routes were fuzzed too, /live/ev among them.
    for (const operation of [`GET ${LIVE}/live/ev`, `GET ${LIVE}/session`, `POST ${LIVE}/session`]) expect({ operation, fuzzed: sentTo(operation).sent > 0 }).toEqual({ operation, fuzzed: true });
    expect([...statuses.keys()].some((s) => s === 200)).toBe(true);
    expect([...statuses.keys()].some((s) => s === 400)).toBe(true);

    // Healthy afterwards: alive, and a plain request is served.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const fresh = await fetch(`${base}/api/v1/rounds?limit=1`, { headers: { Authorization: `Bearer ${keys[0]}`, 'X-Forwarded-For': '203.0.113.250' } });
    expect([200, 429]).toContain(fresh.status);
    expect((await fetch(`${base}/api/v1/openapi.json`, { headers: { 'X-Forwarded-For': '203.0.113.251' } })).status).toBe(200);
    // 3000 requests through five services: about a minute alone, several beside other test files on two cores.
  }, 600_000);
});
