/**
 * What providers do to clients that ask too much or say nothing: per-method request
 * budgets (HTTP 429 with Retry-After, -32029 in batches) and idle WebSockets dropped.
 */
import { WebSocket } from 'ws';
import { startDevnet, type Devnet } from '../src';
import { batch, call, rpc } from './rpc-client';

const running: Devnet[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((d) => d.stop()));
});

async function start(options: Parameters<typeof startDevnet>[0]): Promise<Devnet> {
  const devnet = await startDevnet({ rpcPort: 0, wsPort: 0, slotMs: 20, roundSlots: 8, intermissionSlots: 2, historyRounds: 3, seed: 9, ...options });
  running.push(devnet);
  return devnet;
}

interface Stats {
  served: number;
  refused: number;
  maxServedInWindow: number | null;
  budget: { calls: number; windowMs: number } | null;
}

describe('RPC budgets', () => {
  it('answers a single request over budget with HTTP 429, Retry-After and -32029, and counts it', async () => {
    const devnet = await start({ rpcLimits: 'default=1000/10s,getSlot=3/2s' });
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await call<number>(devnet.rpcUrl, 'getSlot'));
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    const refused = replies[3]!;
    expect(refused.body.error).toEqual({ code: -32029, message: 'Too many requests for a specific RPC call' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(2);
    // Other methods have their own budget.
    expect((await call(devnet.rpcUrl, 'getHealth')).status).toBe(200);
    const stats = await rpc<Record<string, Stats>>(devnet.rpcUrl, 'devnet_rpcStats');
    expect(stats['getSlot']).toEqual({ served: 3, refused: 2, maxServedInWindow: 3, budget: { calls: 3, windowMs: 2000 } });
    expect(stats['getHealth']).toMatchObject({ served: 1, refused: 0, budget: { calls: 1000, windowMs: 10_000 } });
    expect(devnet.rpcStats()['getSlot']).toEqual(stats['getSlot']);
  });

  it('serves the items of a batch within budget and answers the rest -32029, with Retry-After', async () => {
    const devnet = await start({ rpcLimits: 'getBalance=5/1s' });
    const key = devnet.treasury;
    const { status, retryAfter, items } = await batch(devnet.rpcUrl, Array.from({ length: 8 }, () => ({ method: 'getBalance', params: [key] })));
    expect(status).toBe(200);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(items.filter((i) => i.result !== undefined)).toHaveLength(5);
    expect(items.filter((i) => i.error?.code === -32029)).toHaveLength(3);
    // Methods not named (no default) are not limited.
    const free = await batch(devnet.rpcUrl, Array.from({ length: 50 }, () => ({ method: 'getSlot', params: [] })));
    expect(free.retryAfter).toBeNull();
    expect(free.items.every((i) => i.error === undefined)).toBe(true);
  });

  it('never serves more than the budget within any window, however hard it is asked', async () => {
    const devnet = await start({ rpcLimits: 'getSlot=4/500ms' });
    const WINDOW_MS = 500;
    const BUDGET = 4;
    // Per batch, as the client saw it: the devnet counted its items at some instant between
    // the send and the answer (same process, same clock), so items whose whole round trip
    // fits in one window were certainly counted within that window.
    const batches: { sentAt: number; answeredAt: number; served: number }[] = [];
    const until = performance.now() + 2200;
    while (performance.now() < until) {
      const sentAt = performance.now();
      const { items } = await batch(devnet.rpcUrl, Array.from({ length: 3 }, () => ({ method: 'getSlot', params: [] })));
      batches.push({ sentAt, answeredAt: performance.now(), served: items.filter((item) => item.error === undefined).length });
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const served = batches.reduce((n, b) => n + b.served, 0);
    // Every window [start, start + 500 ms) opening at a send: items served by batches whose
    // round trip lies wholly inside it.
    const certainlyInOneWindow = batches.map((first) =>
      batches.filter((b) => b.sentAt >= first.sentAt && b.answeredAt < first.sentAt + WINDOW_MS).reduce((n, b) => n + b.served, 0),
    );
    expect(Math.max(...certainlyInOneWindow)).toBeLessThanOrEqual(BUDGET);
    // The budget is used, not just respected: some window certainly held a full budget
    // (a batch is answered in a few ms, so the first window's four are all inside it).
    expect(certainlyInOneWindow).toContain(BUDGET);
    // From the first send to the last answer: at most a budget per started window.
    const span = batches.at(-1)!.answeredAt - batches[0]!.sentAt;
    expect(served).toBeLessThanOrEqual(BUDGET * Math.ceil(span / WINDOW_MS));
    expect(served).toBeGreaterThanOrEqual(8);
    const stats = devnet.rpcStats()['getSlot']!;
    expect(stats.served).toBe(served);
    expect(stats.refused).toBe(batches.length * 3 - served);
    expect(stats.refused).toBeGreaterThan(stats.served);
  });

  it('refuses a malformed budget', async () => {
    await expect(startDevnet({ rpcPort: 0, wsPort: 0, rpcLimits: 'getSlot=lots' })).rejects.toThrow(/<method>=<calls>\/<window>/);
  });
});

describe('idle WebSockets', () => {
  const open = (url: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });
  const closed = (socket: WebSocket) => new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));

  it('closes a socket that sends nothing for DEVNET_WS_IDLE_S, even with notifications flowing to it', async () => {
    const devnet = await start({ wsIdleS: 1 });
    const socket = await open(devnet.wsUrl);
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' }));
    const opened = Date.now();
    const code = await closed(socket);
    expect(code).toBe(1001);
    expect(Date.now() - opened).toBeGreaterThanOrEqual(900);
    expect(Date.now() - opened).toBeLessThan(2500);
  });

  it('keeps a socket that pings or sends messages', async () => {
    const devnet = await start({ wsIdleS: 1 });
    const pinging = await open(devnet.wsUrl);
    const talking = await open(devnet.wsUrl);
    let closes = 0;
    pinging.once('close', () => closes++);
    talking.once('close', () => closes++);
    const keepAlive = setInterval(() => {
      pinging.ping();
      talking.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotUnsubscribe', params: [0] }));
    }, 300);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    clearInterval(keepAlive);
    expect(closes).toBe(0);
    pinging.close();
    talking.close();
  });

  it('never closes idle sockets with 0', async () => {
    const devnet = await start({ wsIdleS: 0 });
    const socket = await open(devnet.wsUrl);
    let gone = false;
    socket.once('close', () => (gone = true));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(gone).toBe(false);
    socket.close();
  });
});
