/**
 * Issue 12, item 8: hostile requests derived from the OpenAPI document (every operation,
 * its path, query and header parameters and its body), plus malformed JSON, deep
 * nesting, huge and non-ASCII values and bad Authorization headers, sent by the
 * thousand to a running gateway. No answer may be a 5xx other than 503, every error is
 * problem+json with a `code`, no body shows a stack trace or a file path, and the
 * gateway is healthy afterwards.
 */
import { BILLING_MIGRATIONS_DIR, BILLING_SCHEMA, KeyStore } from '@gridlab/billing-store';
import { createPool, runMigrations, type Pool } from '@gridlab/db';
import { EVENTS_MIGRATIONS_DIR, EVENTS_SCHEMA } from '@gridlab/events-store';
import { INDEXER_MIGRATIONS_DIR, INDEXER_SCHEMA, RoundRepository } from '@gridlab/rounds-store';
import { answersOk, createTestDatabase, freePort, startService, syntheticRounds, testNamespace, type ServiceProcess, type TestDatabase } from '@gridlab/testing';
import fc from 'fast-check';
import { loadOpenApi } from '../src/http/openapi';

const SECRET = 'gateway-fuzz-secret-0123456789abcdef!!';
const RUNS = Number(process.env['GRIDLAB_FUZZ_RUNS'] ?? 3000);
const ns = testNamespace();
let db: TestDatabase;
let pool: Pool;
let gateway: ServiceProcess;
let base: string;
const keys: string[] = [];

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
}

/** Every operation of the OpenAPI document, with its parameters and its body schema ($refs resolved one level at a time). */
function operations(): Operation[] {
  const doc = loadOpenApi().document as { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };
  const resolve = (schema: unknown): Record<string, unknown> | null => {
    const ref = (schema as { $ref?: string } | undefined)?.$ref;
    if (ref !== undefined) return resolve(doc.components.schemas[ref.split('/').pop()!]);
    return (schema as Record<string, unknown> | undefined) ?? null;
  };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const o = op as { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: unknown }> } };
      out.push({
        method: method.toUpperCase(),
        path,
        parameters: o.parameters ?? [],
        body: resolve(o.requestBody?.content?.['application/json']?.schema),
      });
    }
  }
  return out;
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
  return fc.oneof(shaped, fc.jsonValue(), deep, scalar);
}

interface FuzzRequest {
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
      path: fc.tuple(...pathParams.map(() => raw)),
      query: fc.tuple(...queryParams.map(() => fc.option(raw, { nil: undefined }))),
      extraQuery: fc.option(fc.tuple(fc.string(), raw), { nil: undefined }),
      auth: fc.oneof(
        fc.constantFrom(...keys).map((k) => `Bearer ${k}`),
        fc.constantFrom(...keys).map((k) => `bearer   ${k}  `),
        fc.string().map((s) => `Bearer ${s}`),
        fc.constantFrom('', 'Bearer', 'Basic Zm9vOmJhcg==', `Bearer grid_${'1'.repeat(43)}`, `Bearer grid_${'0'.repeat(43)}`, 'Bearer 🙂', `Bearer ${'a'.repeat(10_000)}`),
        fc.constant(undefined),
      ),
      accept: fc.constantFrom(undefined, 'application/json', 'application/x-ndjson', 'text/event-stream', '*/*', 'garbage/;;;'),
      encoding: fc.constantFrom(undefined, 'gzip', 'br', 'identity;q=0', 'x'),
      lastEventId: fc.option(raw, { nil: undefined }),
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-16', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1'),
      body: fc.oneof(
        bodyArb(op.body).map((b) => JSON.stringify(b)),
        fc.constantFrom('{', '{"a":', 'nul', '[1,2', '\u0000', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}'),
        fc.string(),
      ),
      forwardedFor: fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('garbage', '', '1.2.3.4, 5.6.7.8', '::ffff:10.0.0.1')),
    })
    .map((r) => {
      let path = op.path;
      pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, encodeURIComponent(r.path[i]!.replace(/[\uD800-\uDFFF]/g, '?')))));
      const query = new URLSearchParams();
      queryParams.forEach((p, i) => r.query[i] !== undefined && query.append(p.name, r.query[i]!));
      if (r.extraQuery !== undefined) query.append(r.extraQuery[0], r.extraQuery[1]);
      const headers: Record<string, string> = { 'X-Forwarded-For': r.forwardedFor, 'Content-Type': r.contentType };
      if (r.auth !== undefined) headers['Authorization'] = r.auth;
      if (r.accept !== undefined) headers['Accept'] = r.accept;
      if (r.encoding !== undefined) headers['Accept-Encoding'] = r.encoding;
      if (r.lastEventId !== undefined) headers['Last-Event-ID'] = r.lastEventId.replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '?');
      for (const [k, v] of Object.entries(headers)) headers[k] = v.replace(/[\r\n\u0000-\u001f\u007f-\uffff]/g, '?');
      const q = query.toString();
      return { method: op.method, url: `${base}${path}${q === '' ? '' : `?${q}`}`, headers, body: op.method === 'GET' || op.method === 'DELETE' ? undefined : r.body };
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

/** A stack frame, a file path with a line number, a dependency or workspace path. */
const LEAK_RE = /\n\s+at \S|\(\/[^)]*:\d+:\d+\)|node_modules\/|\/work\/|\/home\/|\.(?:ts|js|cjs|mjs):\d+/;

beforeAll(async () => {
  db = await createTestDatabase();
  for (const [schema, dir] of [
    [BILLING_SCHEMA, BILLING_MIGRATIONS_DIR],
    [INDEXER_SCHEMA, INDEXER_MIGRATIONS_DIR],
    [EVENTS_SCHEMA, EVENTS_MIGRATIONS_DIR],
  ] as const) {
    await runMigrations({ databaseUrl: db.url, schema, dir });
  }
  pool = createPool(db.url);
  await new RoundRepository(pool).insertMany(syntheticRounds(300));
  const store = new KeyStore(pool, SECRET);
  // Many keys, so that most requests get past their key's rate limit to the handlers.
  for (let i = 0; i < 60; i++) keys.push((await store.grant(`Fuzz${String(i).padStart(2, '0')}${'1'.repeat(38)}`, 30, new Date())).apiKey);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  gateway = await startService(
    'services/api-gateway/src/main.ts',
    {
      DATABASE_URL: db.url,
      NATS_PREFIX: ns.natsPrefix,
      REDIS_PREFIX: ns.redisPrefix,
      API_KEY_HMAC_SECRET: SECRET,
      LOG_LEVEL: 'error',
      PORT: String(port),
      TRUSTED_PROXIES: '127.0.0.1',
      COMMAND_TIMEOUT_MS: '300',
      LAB_TIMEOUT_MS: '300',
    },
    () => answersOk(`${base}/healthz`),
  );
});

afterAll(async () => {
  await gateway.stop();
  await pool.end();
  await db.drop();
  await ns.cleanup();
});

describe('fuzzing the gateway from its OpenAPI document', () => {
  it(`answers ${RUNS} hostile requests with no 5xx but 503, problem+json errors with a code, nothing internal`, async () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(20);
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ops).chain((op) => requestArb(op)),
        async (r) => {
          const res = await send(r);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const what = `${r.method} ${r.url.slice(0, 200)}`;
          if (res.status >= 500 && res.status !== 503) throw new Error(`${what} answered ${res.status}: ${res.body.slice(0, 300)}`);
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
    // Most requests reached the handlers rather than only the limits (the statuses are printed for reading).
    process.stdout.write(`fuzz statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}\n`);
    expect([...statuses.keys()].some((s) => s === 200)).toBe(true);
    expect([...statuses.keys()].some((s) => s === 400)).toBe(true);

    // Healthy afterwards: alive, and a plain request is served.
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const fresh = await fetch(`${base}/api/v1/rounds?limit=1`, { headers: { Authorization: `Bearer ${keys[0]}`, 'X-Forwarded-For': '203.0.113.250' } });
    expect([200, 429]).toContain(fresh.status);
    expect((await fetch(`${base}/api/v1/openapi.json`, { headers: { 'X-Forwarded-For': '203.0.113.251' } })).status).toBe(200);
  });
});
