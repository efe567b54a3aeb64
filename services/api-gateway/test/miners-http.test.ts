import { minerRoundSchema, type MinerRound, type MinerRoundList, type MinerSummary } from '@gridlab/contracts';
import { MemoryLedger, minerRound, OTHER_WALLET, readEvents, startHarness, WALLET, type Harness } from './miners-harness';

const UNKNOWN = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
/** WALLET's ledger, newest first: rounds 15 down to 11. */
const LEDGER = [15, 14, 13, 12, 11].map((id) => minerRound(id, WALLET));

let h: Harness;

beforeEach(async () => {
  h = await startHarness(new MemoryLedger(new Map([[WALLET, LEDGER], [OTHER_WALLET, [minerRound(14, OTHER_WALLET)]]])));
});
afterEach(async () => {
  await h.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${h.url}${path}`, { headers: { Authorization: 'Bearer grid_test', ...headers } });

describe('GET /miners/{address}', () => {
  it("answers the ledger's summary with what the Miner account holds to claim", async () => {
    h.claims.answer = { sol: 5_000_000, ore: 42, refinedOre: 7, checkpointedRound: 15 };
    const res = await get(`/api/v1/miners/${WALLET}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as MinerSummary;
    expect(body.address).toBe(WALLET);
    expect(body.all.rounds).toBe(5);
    expect(body.claimable).toEqual({ sol: 5_000_000, ore: 42, refinedOre: 7, checkpointedRound: 15 });
    expect(h.claims.asked).toEqual([WALLET]);
  });

  it('answers claimable null when the chain gave nothing', async () => {
    const body = (await (await get(`/api/v1/miners/${WALLET}`)).json()) as MinerSummary;
    expect(body.claimable).toBeNull();
    expect(body['24h'].rounds).toBe(1);
  });

  it('answers 404 miner_not_found for a wallet with no indexed round, and 400 for a malformed address', async () => {
    const res = await get(`/api/v1/miners/${UNKNOWN}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'miner_not_found' });
    expect((await get('/api/v1/miners/not-a-wallet0OIl')).status).toBe(400);
  });
});

describe('GET /miners/{address}/rounds', () => {
  it('answers a page below `before` with the next page\'s `before`', async () => {
    const res = await get(`/api/v1/miners/${WALLET}/rounds?before=15&limit=2`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as MinerRoundList;
    expect(body.rounds.map((r) => r.roundId)).toEqual([14, 13]);
    expect(body).toMatchObject({ count: 2, nextBefore: 13 });
    const last = (await (await get(`/api/v1/miners/${WALLET}/rounds?before=13&limit=100`)).json()) as MinerRoundList;
    expect(last.rounds.map((r) => r.roundId)).toEqual([12, 11]);
    expect(last.nextBefore).toBeNull();
  });

  it('answers 404 miner_not_found for an unknown wallet, as a page and as an export', async () => {
    expect(await (await get(`/api/v1/miners/${UNKNOWN}/rounds`)).json()).toMatchObject({ code: 'miner_not_found' });
    const res = await get(`/api/v1/miners/${UNKNOWN}/rounds`, { Accept: 'application/x-ndjson' });
    expect(res.status).toBe(404);
  });

  it('streams the whole ledger below `before` as NDJSON, one row a line, newest first', async () => {
    const res = await get(`/api/v1/miners/${WALLET}/rounds?before=15`, { Accept: 'application/x-ndjson' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    const lines = (await res.text()).trimEnd().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as MinerRound).roundId)).toEqual([14, 13, 12, 11]);
    expect(JSON.parse(lines[0]!)).toEqual(LEDGER[1]);
    // Read in the store's batches (2 rows), to the end.
    expect(h.ledger.calls.exports).toEqual([{ batches: 2, ended: true }]);
  });

  it('streams it as CSV: a header of the schema\'s fields, lists `;`-separated, nulls empty', async () => {
    const res = await get(`/api/v1/miners/${WALLET}/rounds`, { Accept: 'text/csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text()).split('\r\n');
    expect(lines[0]).toBe(Object.keys(minerRoundSchema.properties).join(','));
    expect(lines).toHaveLength(1 + LEDGER.length + 1);
    expect(lines[lines.length - 1]).toBe('');
    const first = Object.fromEntries(lines[0]!.split(',').map((name, i) => [name, lines[1]!.split(',')[i]]));
    expect(first).toMatchObject({ roundId: '15', squares: '3;7', amounts: '1000000;2000000', oreSplit: '', automationStrategy: '', automated: 'false', net: '-35000' });
  });

  it('refuses a second concurrent export of the key with 429 too_many_dumps, as /dump', async () => {
    h.ledger.endless = true;
    const first = await get(`/api/v1/miners/${WALLET}/rounds`, { Accept: 'application/x-ndjson' });
    expect(first.status).toBe(200);
    const second = await get(`/api/v1/miners/${WALLET}/rounds`, { Accept: 'text/csv' });
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ code: 'too_many_dumps' });
    await first.body!.cancel();
  });

  it("ends the store's read when the client goes away mid-export (the next batch is read only once the last was taken)", async () => {
    h.ledger.endless = true;
    const res = await get(`/api/v1/miners/${WALLET}/rounds`, { Accept: 'application/x-ndjson' });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    const deadline = Date.now() + 5_000;
    while (!h.ledger.calls.exports[0]!.ended && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(h.ledger.calls.exports[0]!.ended).toBe(true);
    const batches = h.ledger.calls.exports[0]!.batches;
    await new Promise((r) => setTimeout(r, 100));
    expect(h.ledger.calls.exports[0]!.batches).toBe(batches);
  });
});

describe('performance, top miners and a round\'s miners', () => {
  it('answers the performance series by bucket (day by default), 404 for an unknown wallet', async () => {
    expect(await (await get(`/api/v1/miners/${WALLET}/performance`)).json()).toMatchObject({ address: WALLET, bucket: 'day' });
    expect(await (await get(`/api/v1/miners/${WALLET}/performance?bucket=hour`)).json()).toMatchObject({ bucket: 'hour' });
    expect((await get(`/api/v1/miners/${UNKNOWN}/performance`)).status).toBe(404);
  });

  it('asks the top miners with the defaults (net, 24h, 25) and with the given ones', async () => {
    expect(await (await get('/api/v1/miners')).json()).toMatchObject({ sort: 'net', window: '24h' });
    await get('/api/v1/miners?sort=ore&window=7d&limit=3');
    expect(h.ledger.calls.top).toEqual([{ sort: 'net', window: '24h', limit: 25 }, { sort: 'ore', window: '7d', limit: 3 }]);
    expect((await get('/api/v1/miners?window=1y')).status).toBe(400);
  });

  it("answers a round's miners, and 404 round_not_found for a round without them", async () => {
    const body = (await (await get('/api/v1/rounds/14/miners')).json()) as { count: number; miners: MinerRound[] };
    expect(body.count).toBe(2);
    expect(body.miners.map((m) => m.address).sort()).toEqual([WALLET, OTHER_WALLET].sort());
    const res = await get('/api/v1/rounds/99/miners');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'round_not_found' });
  });
});

describe('GET /miners/{address}/stream', () => {
  it("sends the wallet's deploys and its row of each settled round, and nothing of other wallets", async () => {
    const res = await get(`/api/v1/miners/${WALLET}/stream`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const deploy = { roundId: 16, address: WALLET, signer: WALLET, signature: 'sig1', slot: 1000, squares: [4], amount: 1_000, automated: false, automationStrategy: null };
    h.stream.deployed({ ...deploy, address: OTHER_WALLET, signer: OTHER_WALLET });
    h.stream.deployed(deploy);
    h.stream.settled({ roundId: 16, count: 2, miners: [minerRound(16, OTHER_WALLET), minerRound(16, WALLET, { net: 12 })] });
    const events = await readEvents(res.body!, 2);
    expect(events).toEqual([
      { event: 'deploy', id: undefined, data: deploy },
      { event: 'round', id: '16', data: minerRound(16, WALLET, { net: 12 }) },
    ]);
  });

  it('with Last-Event-ID sends the rounds after it oldest first, then the live ones, without a duplicate across the boundary', async () => {
    let open!: () => void;
    h.ledger.gate = new Promise<void>((r) => (open = r));
    const res = fetch(`${h.url}/api/v1/miners/${WALLET}/stream`, { headers: { Authorization: 'Bearer grid_test', 'Last-Event-ID': '12' } });
    // Live rounds arrive while the ledger is being read: 15 is in the replay too, 16 is not.
    const deadline = Date.now() + 5_000;
    while (h.ledger.calls.rounds.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    h.stream.settled({ roundId: 15, count: 1, miners: [LEDGER[0]!] });
    h.stream.settled({ roundId: 16, count: 1, miners: [minerRound(16)] });
    open();
    const events = await readEvents((await res).body!, 4);
    expect(events.map((e) => [e.event, e.id])).toEqual([
      ['round', '13'],
      ['round', '14'],
      ['round', '15'],
      ['round', '16'],
    ]);
    expect(h.ledger.calls.rounds[0]).toMatchObject({ address: WALLET });
  });

  it('answers 400 for a malformed Last-Event-ID and for a malformed address', async () => {
    expect((await get(`/api/v1/miners/${WALLET}/stream`, { 'Last-Event-ID': 'x' })).status).toBe(400);
    expect((await get('/api/v1/miners/0OIl/stream')).status).toBe(400);
  });

  it('caps the streams of a key with 429 too_many_streams', async () => {
    await h.close();
    h = await startHarness(new MemoryLedger(new Map([[WALLET, LEDGER]])), { streamsPerKey: 1 });
    const first = await get(`/api/v1/miners/${WALLET}/stream`);
    expect(first.status).toBe(200);
    const second = await get(`/api/v1/miners/${OTHER_WALLET}/stream`);
    expect(second.status).toBe(429);
    expect(await second.json()).toMatchObject({ code: 'too_many_streams' });
    await first.body!.cancel();
  });
});
