import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { checkTarget, deliver, newSecret, resolveTarget, signDelivery, type Lookup, type TargetPolicy } from '../src';

interface Receiver {
  readonly port: number;
  readonly seen: { readonly body: string; readonly headers: IncomingMessage['headers'] }[];
  close(): Promise<void>;
}

async function receiver(host: string, answer: (req: IncomingMessage, res: ServerResponse) => void, port = 0): Promise<Receiver> {
  const seen: Receiver['seen'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ body: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The local receivers' policy: http and loopback, as the operator allows them in tests. */
const local = (port: number): TargetPolicy => ({ allowHttp: true, allowPrivate: true, ports: [port] });
const body = JSON.stringify({ type: 'ping' });

async function send(raw: string, policy: TargetPolicy, lookup?: Lookup, timeoutMs?: number) {
  const checked = checkTarget(raw, policy);
  if (!checked.ok) throw new Error(checked.reason);
  const resolved = await resolveTarget(checked.url, policy, lookup);
  if (!resolved.ok) throw new Error(resolved.reason);
  const secret = newSecret();
  const headers = signDelivery([secret], 'msg_test', new Date(), body);
  return { secret, result: await deliver(checked.url, resolved.address, body, { ...headers }, timeoutMs === undefined ? {} : { timeoutMs }) };
}

describe('deliver', () => {
  const open: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((r) => r.close()));
  });

  it('POSTs the body with headers a Standard Webhooks receiver verifies, and keeps the start of the answer', async () => {
    const r = await receiver('127.0.0.1', (_req, res) => res.writeHead(200).end('thanks'));
    open.push(r);
    const { secret, result } = await send(`http://127.0.0.1:${r.port}/hook`, local(r.port));
    expect(result).toMatchObject({ status: 200, delivered: true, excerpt: 'thanks', error: null });
    expect(r.seen).toHaveLength(1);
    const got = r.seen[0]!;
    expect(got.body).toBe(body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
  });

  it('connects to the address it checked, whatever the name resolves to by then (DNS rebinding)', async () => {
    const checked = await receiver('127.0.0.1', (_req, res) => res.writeHead(204).end());
    const other = await receiver('127.0.0.2', (_req, res) => res.writeHead(200).end('rebound'), checked.port);
    open.push(checked, other);
    let calls = 0;
    // The first answer is the one checked; any later one points elsewhere.
    const rebinding: Lookup = async () => [{ address: calls++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    const { result } = await send(`http://hooks.test:${checked.port}/`, local(checked.port), rebinding);
    expect(result).toMatchObject({ status: 204, delivered: true });
    expect(checked.seen).toHaveLength(1);
    expect(other.seen).toHaveLength(0);
  });

  it('refuses, at delivery, a name that now resolves to a private address', async () => {
    let calls = 0;
    const rebinding: Lookup = async () => [{ address: calls++ === 0 ? '93.184.216.34' : '10.0.0.7', family: 4 }];
    const url = new URL('https://hooks.test/');
    expect((await resolveTarget(url, {}, rebinding)).ok).toBe(true);
    expect(await resolveTarget(url, {}, rebinding)).toEqual({ ok: false, reason: 'hooks.test resolves to an address that is not public (10.0.0.7 is IPv4 private)' });
  });

  it('reports a redirect and does not follow it', async () => {
    const elsewhere = await receiver('127.0.0.1', (_req, res) => res.writeHead(200).end());
    const r = await receiver('127.0.0.1', (_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/` }).end());
    open.push(elsewhere, r);
    const { result } = await send(`http://127.0.0.1:${r.port}/`, local(r.port));
    expect(result).toMatchObject({ status: 307, delivered: false, error: 'redirect not followed' });
    expect(elsewhere.seen).toHaveLength(0);
  });

  it('gives up at its deadline on a receiver that never answers', async () => {
    const r = await receiver('127.0.0.1', () => undefined);
    open.push(r);
    const { result } = await send(`http://127.0.0.1:${r.port}/`, local(r.port), undefined, 300);
    expect(result).toMatchObject({ status: null, delivered: false, error: 'timeout' });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
  });

  it('reads a flood of an answer only up to its limit', async () => {
    let written = 0;
    const r = await receiver('127.0.0.1', (_req, res) => {
      res.writeHead(500);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      // Writes until the notifier hangs up.
      const pump = (): void => {
        while (written < 50 * 1024 * 1024 && res.write(chunk)) written += chunk.length;
        if (written < 50 * 1024 * 1024 && !res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => undefined);
      pump();
    });
    open.push(r);
    const { result } = await send(`http://127.0.0.1:${r.port}/`, local(r.port));
    expect(result).toMatchObject({ status: 500, delivered: false });
    expect(result.excerpt).toBe('x'.repeat(1024));
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('says why when nothing listens', async () => {
    const r = await receiver('127.0.0.1', () => undefined);
    const port = r.port;
    await r.close();
    const { result } = await send(`http://127.0.0.1:${port}/`, local(port));
    expect(result).toMatchObject({ status: null, delivered: false, error: 'ECONNREFUSED' });
  });
});
